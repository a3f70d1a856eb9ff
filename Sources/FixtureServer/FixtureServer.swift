// FixtureServer: the in-process HTTP/1.1 server used by tests, `wire serve` and `wire demo` (edge layer).
// Built on HTTPWire's transport and codec in the client issue; a placeholder until then.

/// The project's own test server. Not yet implemented: see the client issue.
public enum FixtureServerPlaceholder {}
