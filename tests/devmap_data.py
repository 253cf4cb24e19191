"""Hand-made device-mapping datasets laid out as ../shared/downstream/devmap (docs/downstream.md),
for tests whose answers are known: kernel k's IR has k+1 multiplies (so their histograms differ), its
name puts it in suite k % 3, and rule(k, data_set_index) gives each row's transfer and whether
the GPU is faster; with depth(k), the multiplies run inside that many nested loops. Each row's src holds two line breaks: row i starts on CSV line 2 + 3 i."""
import csv
import os


def loop_nest(body, result, d):
    """A function whose body (instructions) runs inside d nested counted loops; its blocks'
    loop depths are known: headers and latches of loop j have depth j, the body d."""
    if d == 0:
        return f"define i32 @f(i32 %v0) {{\n{body}  ret i32 {result}\n}}\n"
    out = ["define i32 @f(i32 %v0) {", "entry:", "  br label %h1"]
    for j in range(1, d + 1):
        pred = "entry" if j == 1 else f"h{j - 1}"
        out += [f"h{j}:", f"  %i{j} = phi i32 [ 0, %{pred} ], [ %n{j}, %l{j} ]",
                f"  br label %{'body' if j == d else f'h{j + 1}'}"]
    out += ["body:", body.rstrip("\n"), f"  br label %l{d}"]
    for j in range(d, 0, -1):
        out += [f"l{j}:", f"  %n{j} = add i32 %i{j}, 1", f"  %c{j} = icmp slt i32 %n{j}, 10",
                f"  br i1 %c{j}, label %h{j}, label %{'exit' if j == 1 else f'l{j - 1}'}"]
    out += ["exit:", f"  ret i32 {result}", "}"]
    return "\n".join(out) + "\n"


def make(dir_, rule, kernels=40, sets=("default", "A", "B"), platforms=("one",), depth=lambda k: 0):
    os.makedirs(os.path.join(dir_, "kernels_ir"))
    for pl in platforms:
        with open(os.path.join(dir_, f"cgo17-{pl}.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["", "benchmark", "dataset", "comp", "rational", "mem", "localmem", "coalesced",
                        "atomic", "transfer", "wgsize", "oracle", "runtime_cpu", "runtime_gpu", "src", "seq"])
            n = 0
            for k in range(kernels):
                name = f"suite{k % 3}-1.{k % 3}-prog{k}-kern"
                for si, s in enumerate(sets):
                    transfer, gpu = rule(k, si)
                    w.writerow([n, name, s, k, 1, 2, 0, 1, 0, transfer, 64, "GPU" if gpu else "CPU",
                                2.0 if gpu else 1.0, 1.0 if gpu else 2.0, "__kernel void A() {\n  int a = 1;\n}", ""])
                    n += 1
                    fn = name + ".ll" if s == "default" else f"{name}_{s}.ll"
                    # A chain of k+1 multiplies the result depends on: code generation keeps it,
                    # so the machine IR differs between kernels too.
                    body = "".join(f"  %v{i + 1} = mul i32 %v{i}, %v0\n" for i in range(k + 1))
                    with open(os.path.join(dir_, "kernels_ir", fn), "w") as g:
                        g.write(loop_nest(body, f"%v{k + 1}", depth(k)))


def separable(k, s):
    """transfer separates the devices: GPU rows have transfer >= 5000, CPU rows < 200."""
    return (100 + k if (k + s) % 2 else 5000 + k, (k + s) % 2 == 0)
