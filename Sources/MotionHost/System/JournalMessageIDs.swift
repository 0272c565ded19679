/// `MESSAGE_ID`s of the log entries an operator looks for (`journalctl MESSAGE_ID=…`), one per kind of
/// event, fixed for good: docs/operations.md#the-journal lists them. Keyed by the entry's message, which
/// for these kinds is constant (what varies is in the metadata).
package enum JournalMessageIDs {
    package static let byMessage: [String: String] = [
        "ready": "1ab4e69aa0aa4e64871039efec65d47d",
        "stopped": "d4c152b149e04d41834b4c809348e4f5",
        "reloaded": "f71028da0b034d7ca887e7c09d100d66",
        "plugin loaded": "415b32f535c24655aa54b65cfe7dbbe6",
        "plugin refused": "35485956a2894c728d8fffa44e318e14",
        "plugin swapped": "d1503fc61fee4e2abb752742b125b1e3",
        "a plugin crashed motiond; it is quarantined": "6245f9aeedff403aba26f094586b6a01",
        "a plugin hung motiond (a call that never returned); it is quarantined": "6d9d55b9020f4a68b31a5cfb2c604c1b",
        "a plugin call held the frame clock": "3378e6965b0741a48f9219c80aa37d9c",
        "a plugin wrote a value that is not finite": "4c3bbb1530274ef2b99dea766909f88c",
        "disconnecting a client that stopped reading": "6e5b69cd42c24338b1d6b50a4337e9d1",
        "connection refused at a quota": "aa69c9ee367e45538bab1963f8698606",
        "journal not written; the changes are refused": "4018e6c7097e4ecab6123d6899969e03",
        "journal past the uid's journalBytes quota: the oldest records of a runtime are dropped; a restart will not bring them back":
            "4d4510b83473470381063af5832cb899",
        "runtimes replayed from the journal": "6f14c5c17f92401188e6d262b18c7ac3",
    ]

    package static func id(for message: String) -> String? { byMessage[message] }
}
