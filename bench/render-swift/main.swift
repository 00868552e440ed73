import Foundation
import ProgressRender

/// The renderer benchmark, progress-render's side: the same images as bench/render, drawn
/// by ProgressRenderer in this process. Usage: render-bench COUNT.
let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 500 : 500

func measure(_ make: (inout RenderSpec) -> Void) throws -> Double {
    var spec = RenderSpec()
    make(&spec)
    let began = Date()
    for _ in 0..<count { _ = try ProgressRenderer.render(spec) }
    return Double(count) / Date().timeIntervalSince(began)
}

let striped: (inout RenderSpec) -> Void = { $0.style = .striped; $0.fraction = 0.42; $0.label = "42%" }
let ring: (inout RenderSpec) -> Void = { $0.style = .ring; $0.width = 128; $0.height = 128; $0.fraction = 0.42; $0.label = "42%" }
_ = try measure(striped)  // warm the font caches
print(String(format: "striped-1 %.1f", try measure(striped)))
print(String(format: "striped-2 %.1f", try measure { striped(&$0); $0.scale = 2 }))
print(String(format: "ring-1 %.1f", try measure(ring)))
print(String(format: "ring-2 %.1f", try measure { ring(&$0); $0.scale = 2 }))
