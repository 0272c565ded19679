/// The JSON core (`JSONValue`, its parser and writer) lives in the plugin SDK so that plugins, the daemon
/// and its clients share one; every user of the wire types gets it with them.
@_exported import MotionJSON
