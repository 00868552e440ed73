import Foundation
import ProgressRender

/// The renderer benchmark, progress-render's side: the same images as bench/render, drawn
/// by ProgressRenderer in this process. Usage: render-bench COUNT, or render-bench write DIR
/// to write each case's image as DIR/case.png (the benchmark compares them with C's).
func spec(_ make: (inout RenderSpec) -> Void) -> RenderSpec {
    var spec = RenderSpec()
    make(&spec)
    return spec
}

let striped = spec { $0.style = .striped; $0.fraction = 0.42; $0.label = "42%" }
let ring = spec { $0.style = .ring; $0.width = 128; $0.height = 128; $0.fraction = 0.42; $0.label = "42%" }
let cases: [(name: String, spec: RenderSpec)] = [
    ("striped-1", striped), ("striped-2", spec { $0 = striped; $0.scale = 2 }),
    ("ring-1", ring), ("ring-2", spec { $0 = ring; $0.scale = 2 }),
]

let arguments = CommandLine.arguments
if arguments.count > 2, arguments[1] == "write" {
    for (name, spec) in cases {
        try Data(ProgressRenderer.render(spec).data).write(to: URL(fileURLWithPath: arguments[2]).appendingPathComponent("\(name).png"))
    }
    exit(0)
}

let count = arguments.count > 1 ? Int(arguments[1]) ?? 500 : 500
func measure(_ spec: RenderSpec, count: Int) throws -> Double {
    let began = Date()
    for _ in 0..<count { _ = try ProgressRenderer.render(spec) }
    return Double(count) / Date().timeIntervalSince(began)
}

_ = try measure(striped, count: 20)  // warm the font caches
for (name, spec) in cases {
    print(String(format: "%@ %.1f", name, try measure(spec, count: count)))
}
