"""Timing on the GPU as the repository's Rust runners time (CUDA events around each call, back
to back, no cache flush between calls): shared by the Python benches."""


def events_ms(torch, fn, warm=3, reps=30):
    """Median milliseconds of `fn` over `reps` calls after `warm` warm-up calls."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2]
