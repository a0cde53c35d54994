"""`kernelviz verify`: run every kernel against attention/'s reference (on the GPU when there is one, else through
the CPU shim), and with --compile, tabulate what ptxas reports for each kernel and architecture, as built by nvcc
and by NVRTC (the GPU launcher's compiler)."""

HELP = "check the CUDA kernels: compile them with nvcc and NVRTC (--compile) and compare their answers with attention/"


def add_arguments(parser):
    parser.add_argument(
        "--compile",
        action="store_true",
        help="compile with nvcc and NVRTC for sm_80 and sm_90 and print "
        "registers, shared memory and spills per kernel (no GPU needed)",
    )
    parser.add_argument(
        "--backend",
        choices=("auto", "gpu", "cpu"),
        default="auto",
        help="where to run the kernels: the GPU if there is one (auto), or the CPU shim",
    )
    parser.add_argument("--no-run", action="store_true", help="only compile (with --compile); run nothing")
    parser.add_argument(
        "--write-report",
        action="store_true",
        help="with --compile: save the tables to kernelviz/cuda/report.json (a site built without a compiler shows it)",
    )


def main(args):
    from kernelviz.cuda import compile, launch, nvrtc, verify

    status = 0
    if args.compile:
        compilers = [("nvcc", compile.compile_all)]
        if nvrtc.version():
            compilers.append(("NVRTC, what the GPU launcher loads", nvrtc.build_all))
        else:
            print("NVRTC is not installed (pip install cuda-bindings nvidia-cuda-nvrtc): only nvcc's table\n")
        for compiler, build in compilers:
            try:
                found = build()
            except RuntimeError as e:
                print(f"error: {e}")
                return 1
            for kernel, rows in found.items():
                print(f"{kernel}.cu ({compiler})\n{compile.table(rows)}\n")
                if any(r.spill_stores or r.spill_loads for r in rows):
                    print(f"warning: {kernel}.cu spills registers ({compiler})")
        if args.write_report:
            from kernelviz.cuda import report

            print(f"wrote {report.write()}")
    if args.no_run:
        return status
    backend = None if args.backend == "auto" else args.backend
    if backend != "cpu" and (why := launch.problem()):
        if backend == "gpu" or launch.required():
            print(f"error: no GPU path: {why}; use --backend cpu (KERNELVIZ_REQUIRE_GPU=1 makes auto need one too)")
            return 1
        print(f"no GPU path ({why}): running on the CPU shim\n")
        backend = "cpu"
    try:
        found = verify.checks(backend, progress=True)
    except (RuntimeError, ValueError) as e:
        print(f"error: {e}")
        return 1
    print(verify.table(found))
    failed = [c for c in found if not c.ok]
    passed = len(found) - len(failed)
    print(f"\n{passed} passed, {len(failed)} failed ({verify.tolerances()})")
    return 1 if failed else status
