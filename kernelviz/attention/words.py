"""How the command lines say bytes: in binary units, and a ratio in the direction it goes; and the units a time is
said in. The browser's roofline says them as the command line does from the same tables (``js_words`` generates
web/.gen/words.js from ``BINARY_UNITS`` and ``TIME_UNITS``)."""

BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")  # bytes, each 1024 times the one before
TIME_UNITS = (("days", 86400), ("h", 3600), ("min", 60), ("s", 1), ("ms", 1e-3), ("µs", 1e-6))  # below: ns


def ratio(bytes_, baseline, name):
    """`bytes_` against `baseline`, in words that say which way: "3.0× fewer bytes than standard attention"."""
    if bytes_ == baseline:
        return f"the same bytes as {name} (1.0×)"
    if bytes_ < baseline:
        return f"{baseline / bytes_:.1f}× fewer bytes than {name}"
    return f"{bytes_ / baseline:.1f}× more bytes than {name}"


def size(n):
    """`n` bytes in binary units: "130.0 MiB", up to EiB (the roofline answers at any size)."""
    for unit in BINARY_UNITS:
        if n < 1024 or unit == BINARY_UNITS[-1]:
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return None  # unreachable


def on_gpu(roof):
    """A run's place on a GPU's roofline (``roofline.bound``'s answer) in one line."""
    return (
        f"on {roof['gpu']}: {roof['intensity']:.2f} FLOP/B, bound by {roof['bound']}, at least "
        f"{roof['lower_bound_s'] * 1e6:.3g} µs ({roof['attained_flops_per_s'] / 1e12:.3g} TFLOP/s at that bound)"
    )
