import CFFI

/// Timing functions that plugins export as plain C functions, called through libffi.
///
/// A function's call interface is prepared once; a plan binds it to its arguments once (`bind`), and every
/// sample is then one `ffi_call` with no allocation (`evaluate`).
package final class CurveTable {
    /// One exported function and its prepared call interface.
    final class Function {
        let name: String
        let signature: String
        let plugin: String
        /// Its plugin's file and hash, marked while it runs: a crash inside it quarantines that plugin, not
        /// the one whose performer asked for the value.
        let label: UnsafePointer<CChar>?
        let address: UInt
        /// Argument types after t: "d" double, "f" float, "i" int32, "l" int64. Nil if the signature is bad.
        let argumentTypes: [Character]?
        private(set) var cif: UnsafeMutablePointer<ffi_cif>?
        private var types: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>?

        init(_ descriptor: FunctionDescriptor, plugin: String, label: UnsafePointer<CChar>? = nil) {
            name = descriptor.name
            signature = descriptor.signature
            self.plugin = plugin
            self.label = label
            address = descriptor.address
            argumentTypes = Self.parse(descriptor.signature)
        }

        /// "d(d…)" — a double result, t as the first (double) argument.
        static func parse(_ signature: String) -> [Character]? {
            let characters = Array(signature)
            guard characters.count >= 4, characters[0] == "d", characters[1] == "(", characters.last == ")",
                characters[2] == "d"
            else { return nil }
            let rest = characters[3..<(characters.count - 1)]
            guard rest.count <= 8, rest.allSatisfy({ "dfil".contains($0) }) else { return nil }
            return Array(rest)
        }

        /// Prepares the call interface on first use.
        func prepare() -> Bool {
            if cif != nil { return true }
            guard let argumentTypes else { return false }
            let count = argumentTypes.count + 1
            let types = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: count)
            types[0] = cffi_type_double()
            for (index, type) in argumentTypes.enumerated() {
                switch type {
                case "f": types[index + 1] = cffi_type_float()
                case "i": types[index + 1] = cffi_type_sint32()
                case "l": types[index + 1] = cffi_type_sint64()
                default: types[index + 1] = cffi_type_double()
                }
            }
            let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
            guard ffi_prep_cif(cif, cffi_default_abi(), UInt32(count), cffi_type_double(), types) == FFI_OK else {
                cif.deallocate()
                types.deallocate()
                return false
            }
            self.cif = cif
            self.types = types
            return true
        }
    }

    /// A function bound to a plan's arguments: 8 bytes per argument, t first.
    struct Binding {
        let function: Function
        let values: UnsafeMutableRawPointer
        let pointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    }

    private var functions: [String: Function] = [:]
    /// Indexed by handle − 1, so a sample costs no hashing; released slots are reused.
    private var bindings: [Binding?] = []
    private var freeSlots: [Int] = []

    package init() {}

    /// Adds the functions of `plugins` not known yet; a name already taken stays with its first plugin.
    package func register(_ plugins: [PluginRegistry.Entry]) {
        for entry in plugins where !entry.plugin.functions.isEmpty {
            let label = PluginCallMarker.label(file: entry.plugin.file, hash: entry.hash)
            // First plugin wins a name; a newer generation of that same plugin takes it over (hot swap).
            for descriptor in entry.plugin.functions
            where functions[descriptor.name].map({ $0.plugin == entry.plugin.id }) ?? true {
                functions[descriptor.name] = Function(descriptor, plugin: entry.plugin.id, label: label)
            }
        }
    }

    package var names: [String] { functions.keys.sorted() }

    package func bind(_ name: String, arguments: [Double]) throws(EngineError) -> UInt64 {
        guard let function = functions[name] else {
            throw EngineError(.invalidPlan, "timing.function: no timing function \"\(name)\"; known: \(names.joined(separator: ", "))")
        }
        guard let types = function.argumentTypes, function.prepare() else {
            throw EngineError(.invalidPlan, "timing.function: \"\(name)\" from \(function.plugin) has an invalid signature \"\(function.signature)\" (expected e.g. \"d(d)\" or \"d(di)\")")
        }
        guard arguments.count == types.count else {
            throw EngineError(.invalidPlan, "timing.args: \"\(name)\" takes \(types.count) argument\(types.count == 1 ? "" : "s") after t (signature \(function.signature)), got \(arguments.count)")
        }
        let values = UnsafeMutableRawPointer.allocate(byteCount: 8 * (types.count + 1), alignment: 8)
        let pointers = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: types.count + 1)
        pointers[0] = values
        for (index, (type, argument)) in zip(types, arguments).enumerated() {
            let slot = values + 8 * (index + 1)
            pointers[index + 1] = slot
            switch type {
            case "i", "l":
                guard argument.rounded() == argument, abs(argument) <= (type == "i" ? Double(Int32.max) : 9e15) else {
                    values.deallocate()
                    pointers.deallocate()
                    throw EngineError(.invalidPlan, "timing.args[\(index)]: \"\(name)\" expects an integer, got \(argument)")
                }
                if type == "i" { slot.storeBytes(of: Int32(argument), as: Int32.self) } else { slot.storeBytes(of: Int64(argument), as: Int64.self) }
            case "f": slot.storeBytes(of: Float(argument), as: Float.self)
            default: slot.storeBytes(of: argument, as: Double.self)
            }
        }
        let binding = Binding(function: function, values: values, pointers: pointers)
        if let slot = freeSlots.popLast() {
            bindings[slot] = binding
            return UInt64(slot + 1)
        }
        bindings.append(binding)
        return UInt64(bindings.count)
    }

    package func evaluate(_ handle: UInt64, at t: Double) -> Double {
        guard handle > 0, handle <= UInt64(bindings.count), let binding = bindings[Int(handle - 1)],
            let cif = binding.function.cif
        else { return t }
        binding.values.storeBytes(of: t, as: Double.self)
        var result = 0.0
        PluginCallMarker.calling(binding.function.label, "timing function") {
            ffi_call(cif, unsafeBitCast(binding.function.address, to: (@convention(c) () -> Void).self), &result, binding.pointers)
        }
        return result
    }

    package func release(_ handle: UInt64) {
        guard handle > 0, handle <= UInt64(bindings.count), let binding = bindings[Int(handle - 1)] else { return }
        bindings[Int(handle - 1)] = nil
        freeSlots.append(Int(handle - 1))
        binding.values.deallocate()
        binding.pointers.deallocate()
    }

    package var bindingCount: Int { bindings.count - freeSlots.count }
}
