"""Exceptions raised for kernels that metalsim could not compile or found faulty."""


class MetalsimError(RuntimeError):
    """Base class of every metalsim_mlx error."""


class MetalsimSetupError(MetalsimError):
    """The ksearch-metalsim executable or the host compiler it needs is missing."""


class MetalCompileError(MetalsimError):
    """The kernel did not compile; ``messages`` are the compiler's, mapped to body/header lines."""

    def __init__(self, text, messages, log):
        super().__init__(text)
        self.messages = messages
        self.log = log


class MetalRuntimeError(MetalsimError):
    """metalsim reported problems while running the kernel (out-of-bounds access, data race,
    barrier divergence, ...), or crashed, or found that the kernel's result depends on the order its
    threads run in. ``diagnostics`` holds metalsim's records; ``schedule`` names the schedule
    ("reversed", "atomic-lockstep") under which a schedule dependence showed, else None."""

    def __init__(self, text, diagnostics, schedule=None):
        super().__init__(text)
        self.diagnostics = diagnostics
        self.schedule = schedule


class MetalsimWarning(UserWarning):
    """metalsim saw something a Mac does not report but that is undefined behaviour in Metal: a read
    outside a device buffer (within the emulator's red zone) whose value the kernel may discard, as
    MLX's documented grid_sample example does. The outputs are returned; `warnings.simplefilter(
    "error", metalsim_mlx.MetalsimWarning)` makes it an error."""
