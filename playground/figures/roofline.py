"""The roofline model: how fast a kernel could run on a target, from its FLOPs, its bytes and the device table.

Nothing here is measured. The formulas, and where they come from:

- Roofline (S. Williams, A. Waterman, D. Patterson, "Roofline: An Insightful Visual Performance Model
  for Multicore Architectures", CACM 52(4), 2009): arithmetic intensity I = FLOPs / DRAM bytes;
  attainable FLOP/s = min(peak FLOP/s, I x peak bandwidth). The ridge point, peak / bandwidth, is
  the intensity where the two roofs meet: below it a kernel is memory-bound, above it compute-bound.
  As a time: t = max(FLOPs / peak, bytes / bandwidth).
- Wave quantisation (NVIDIA Deep Learning Performance Guide, "Matrix Multiplication Background",
  section "Wave Quantization"): the GPU runs a grid in waves of (SMs x CTAs resident per SM); a
  wave that is partly empty takes as long as a full one. For a compute-bound kernel each CTA
  slot is a share of the tensor or FMA units, so the machine is busy only
  CTAs / (waves x CTAs per wave) of the time, and the modelled time is the roofline time divided by
  that fill. For a memory-bound kernel DRAM is one pool for the whole chip: a partial wave
  streams at full bandwidth as long as the SMs it runs on can take that much in. The rule caps one
  SM at 128 bytes per clock (SM_BYTES_PER_CLOCK below: the width of its L1/shared-memory path, an
  upper bound; what reaches an SM from L2 is narrower, about 47 B/clock per SM on an A100 by its
  white paper's L2 rate, which this rule does not use), so a last wave of r CTAs on r SMs streams
  at min(DRAM, r x 128 B x clock): it costs max(r, S) CTA-times instead of a full wave's, where
  S = DRAM / (128 B x clock) is the number of SMs that could take in the whole bandwidth at that cap
  (13.2 of an H100's 132; more at the L2's rate). The model assumes every CTA does the same work. How many bytes so few CTAs keep
  in flight, against the memory latency, is left to the performance model (model/explain.py).
  (An earlier rule gave each SM an even share, DRAM / SMs; the validation set's L40S rows, 32
  CTAs on 142 SMs streaming at 60% of peak or more, contradict it.)

The peaks and bandwidth come from `devices.py` (each with its datasheet named there); CTAs resident
per SM from `occupancy.py` (the CUDA occupancy calculator's rules, applied to the compiled kernel).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from ..artefact.instruction_mix import matrix_precision   # the roof's precision (bench and capture ask here too)
from ..core import devices, dtypes
from ..errors import UserError
from .grid import ctas

# devices.py keys fp8 peaks as "fp8"; the spec names the two fp8 formats.

# What one SM can take in per clock, at most (an upper bound: the L2-to-SM path is narrower): its L1 cache and shared memory are one SRAM (CUDA C++ Programming
# Guide, "Compute Capability 8.x" and later: a unified data cache), whose 32 banks of 4 bytes serve 128
# bytes per clock ("Shared Memory"). AMD: the CDNA3 white paper's LDS rate, 128 bytes per clock per CU; its
# vector L1 is a separate cache whose rate is not used here, an assumption.
SM_BYTES_PER_CLOCK = 128


def sms_to_fill_dram(device) -> float:
    """How many SMs (CUs), each taking in SM_BYTES_PER_CLOCK, it takes to draw the device's whole DRAM
    bandwidth; at most all of them."""
    return min(float(device.num_sms),
               device.mem_bandwidth_gbs * 1e9 / (SM_BYTES_PER_CLOCK * device.clock_ghz * 1e9))


MEASURE_HINT = "to measure instead, run on a machine with a CUDA GPU and --target native"


@dataclass
class Estimate:
    """The roofline arithmetic, in plain units: FLOPs, bytes, FLOP/s, bytes/s, seconds."""
    flops: int
    bytes: int
    peak_flops: float            # FLOP/s of the roof that applies (tensor cores or not)
    bandwidth: float             # bytes/s
    intensity: float             # FLOP per byte
    ridge: float                 # FLOP per byte where compute and memory roofs meet
    bound: str                   # "memory" or "compute"
    compute_seconds: float       # FLOPs / peak
    memory_seconds: float        # bytes / bandwidth
    roofline_seconds: float      # the larger of the two
    ctas: int | None = None
    ctas_per_wave: int | None = None
    waves: int | None = None
    wave_fill: float = 1.0       # share of the bound resource the grid keeps busy (see the module docstring)
    seconds: float = 0.0         # roofline time / wave fill

    @property
    def tflops(self) -> float:
        return self.flops / self.seconds / 1e12 if self.seconds else 0.0

    @property
    def gbs(self) -> float:
        return self.bytes / self.seconds / 1e9 if self.seconds else 0.0

    @property
    def percent_of_peak(self) -> float:
        """Throughput on the bound resource as a share of its peak: the roofline gives 100% before waves."""
        if not self.seconds:
            return 0.0
        if self.bound == "memory":
            return 100.0 * self.bytes / self.seconds / self.bandwidth
        return 100.0 * self.flops / self.seconds / self.peak_flops


def estimate(flops: int, nbytes: int, peak_tflops: float, bandwidth_gbs: float,
             ctas: int | None = None, ctas_per_wave: int | None = None,
             dram_sms: float | None = None) -> Estimate:
    """Roofline time, then wave quantisation when the grid and the CTAs per wave are known.

    `dram_sms` (sms_to_fill_dram) lets a memory-bound grid's partial wave lose only what too few SMs
    cannot take in, rather than count by CTA slots.
    """
    peak, bandwidth = peak_tflops * 1e12, bandwidth_gbs * 1e9
    compute_s, memory_s = flops / peak, nbytes / bandwidth
    ridge = peak / bandwidth
    intensity = flops / nbytes if nbytes else math.inf
    est = Estimate(flops=flops, bytes=nbytes, peak_flops=peak, bandwidth=bandwidth, intensity=intensity,
                   ridge=ridge, bound="compute" if intensity >= ridge else "memory",
                   compute_seconds=compute_s, memory_seconds=memory_s, roofline_seconds=max(compute_s, memory_s))
    if ctas and ctas_per_wave:
        waves = math.ceil(ctas / ctas_per_wave)
        est.ctas, est.ctas_per_wave, est.waves = ctas, ctas_per_wave, waves
        if est.bound == "memory" and dram_sms:
            full, last = divmod(ctas, ctas_per_wave)
            est.wave_fill = ctas / (full * ctas_per_wave + (max(last, dram_sms) if last else 0))
        else:
            est.wave_fill = ctas / (waves * ctas_per_wave)
    est.seconds = est.roofline_seconds / est.wave_fill
    return est


@dataclass
class Model:
    """The model for one compiled kernel on one target's representative GPU."""
    kernel: str
    target: str
    device: str                  # the GPU whose table was used
    shape: dict
    dtype: str
    config: str
    estimate: Estimate
    roof: str                    # which compute peak applies, in words
    peak_tflops: float
    bandwidth_gbs: float
    l2_bytes: int
    active_blocks_per_sm: int | None = None
    num_sms: int = 0
    dram_sms: float = 0.0        # SMs (CUs) that take in the whole DRAM bandwidth (sms_to_fill_dram)
    notes: list[str] = field(default_factory=list)
    kind: str = "modelled"
    # the performance model's explanation (model/explain.py), when `bench` asked for it: its time is the
    # modelled time; the roofline above is then the ceiling it is compared with
    explained: object = None

    @property
    def seconds(self) -> float:
        return self.explained.seconds if self.explained else self.estimate.seconds

    def as_dict(self) -> dict:
        e = self.estimate
        d = asdict(self)
        d["estimate"].update(tflops=e.tflops, gbs=e.gbs, percent_of_peak=e.percent_of_peak)
        d["explained"] = self.explained.as_dict() if self.explained else None
        if self.explained:          # the model's time counts launch overhead itself
            d["notes"] = [n for n in d["notes"] if not n.startswith("launch overhead")]
        d["time_us"] = self.seconds * 1e6
        d["roofline_us"] = e.seconds * 1e6
        return d


def peak_for(device, matrix: str | None) -> tuple[float, str]:
    """The compute roof: the matrix-unit peak for the precision the code's MMAs use, else plain fp32.

    `matrix` is that precision as devices.py keys it ("fp16", "tf32", ...), None when the code has no
    matrix instructions. Element-wise code runs on the ordinary fp32 units whatever its storage dtype;
    packed fp16 arithmetic (HFMA2) can go up to twice that, which the model does not count.
    """
    if matrix and matrix in device.peak_tflops:
        unit = "tensor cores" if device.is_nvidia else "matrix cores"
        return device.peak_tflops[matrix], f"{matrix} {unit}"
    return device.peak_tflops["fp32"], "fp32, no tensor cores"



def ctas_of(compiled) -> int:
    return ctas(compiled)


def active_blocks(compiled) -> tuple[int | None, str]:
    """CTAs resident per SM from the occupancy calculator (per-SM limits: the SM count does not
    change it), or None with the reason when it cannot say."""
    try:
        from . import occupancy
    except ImportError:
        return None, "occupancy module not available: no wave quantisation"
    try:
        occ = occupancy.of(compiled)
    except Exception as e:  # a target the calculator does not cover: say so, keep the roofline
        return None, f"occupancy not computed ({e}): no wave quantisation"
    if not occ.launchable:
        return 0, f"cannot launch on {compiled.target.label}: {occ.reason}"
    return occ.active_blocks_per_sm, ""


def model(compiled, device=None) -> Model:
    device = device or devices.get(compiled.target)
    spec, cfg = compiled.spec, compiled.config
    if spec.flops is None or spec.bytes is None:
        raise UserError(f"{spec.name}: nothing to model: no FLOP or byte count is known for it (only a KernelSpec gives them)")
    flops, nbytes = spec.flops(cfg.shape), spec.bytes(cfg.shape, dtypes.size(cfg.dtype))
    peak, roof = peak_for(device, matrix_precision(compiled))
    notes = [work_note(spec)] if spec.work_basis else []
    blocks, why = active_blocks(compiled)
    if why:
        notes.append(why + ("; the time below ignores that" if blocks == 0 else ""))
    ctas = ctas_of(compiled)
    if blocks == 0:
        blocks = None
    dram_sms = sms_to_fill_dram(device)
    est = estimate(flops, nbytes, peak, device.mem_bandwidth_gbs, ctas,
                   blocks * device.num_sms if blocks else None, dram_sms)
    if nbytes <= device.l2_bytes:
        notes.append(f"the {_mb(nbytes)} moved fit in the {_mb(device.l2_bytes)} L2: a warm measurement "
                     f"can beat the DRAM roof; the model assumes every byte comes from DRAM")
    notes.append("launch overhead (a few microseconds per call) is not modelled")
    return Model(kernel=spec.name, target=compiled.target.label, device=device.name, shape=dict(cfg.shape),
                 dtype=cfg.dtype, config=cfg.describe(), estimate=est, roof=roof, peak_tflops=peak,
                 bandwidth_gbs=device.mem_bandwidth_gbs, l2_bytes=device.l2_bytes,
                 active_blocks_per_sm=blocks, num_sms=device.num_sms, dram_sms=dram_sms, notes=notes)


def work_note(spec) -> str:
    return f"FLOPs and bytes: {spec.work_basis} (no KernelSpec counts them)"


def _mb(n: int) -> str:
    return f"{n / 2**20:.3g} MiB"
