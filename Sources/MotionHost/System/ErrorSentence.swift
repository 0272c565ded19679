import Foundation

/// A Foundation file error as a sentence a user can act on (`/run/motiond: Permission denied`), not
/// `Error Domain=NSCocoaErrorDomain Code=513 …` (issue #43).
package enum ErrorSentence {
    package static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        guard nsError.domain == NSCocoaErrorDomain || nsError.domain == NSPOSIXErrorDomain else { return "\(error)" }
        let path = (nsError.userInfo[NSFilePathErrorKey] as? String) ?? (nsError.userInfo[NSURLErrorKey] as? URL)?.path
        let underlying = (nsError.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        let code = underlying?.domain == NSPOSIXErrorDomain ? Int32(underlying!.code) : (nsError.domain == NSPOSIXErrorDomain ? Int32(nsError.code) : 0)
        let reason = code != 0 ? String(cString: strerror(code)) : nsError.localizedDescription
        return path.map { "\($0): \(reason)" } ?? reason
    }
}
