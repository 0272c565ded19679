/// Ticks whose values no one reads (docs/plugins.md, "motion.kept/1" and "motion.unread/1"): the clock
/// says so before such a tick, and plugins that can keep their values instead of writing them do, until
/// someone asks (`Engine+KeptWrites`).
package struct UnreadWrites {
    /// Set by the clock before a tick that no frame subscriber will see.
    package var writesUnread = false
    /// With `writesUnread`: a byte per property handle, nonzero where someone reads the value anyway (a
    /// filtered subscriber); what "motion.unread/1" `read_properties` lends for the tick.
    package var readProperties: UnsafeBufferPointer<UInt8>?
    /// The same properties as a list of handles (no order): `read_property_list`.
    package var readPropertyList: UnsafeBufferPointer<UInt32>?
    /// True during an `advance(by:)` begun with `writesUnread`: what "motion.unread/1" answers.
    var isKeepingWrites = false
    /// Factories without `write_kept_some` asked for everything since the store last went stale.
    var keptWrittenWhole: Set<UInt> = []
}
