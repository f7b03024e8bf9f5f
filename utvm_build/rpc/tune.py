"""`utvm-build tune MODEL --device D --target T -o tuning.json`: kernels chosen per layer by measurement.

1. Every layer is prepared under the fixed rules with the selection recorder on (selection.py):
   the target paths its rule took are its alternatives; each is excluded in turn (and what the
   rule falls back to, again, up to MAX_VARIANTS per layer), giving the layer's variants, named
   ``default`` and ``without:FN[+FN]``.
2. One firmware per variant name, applied at once to every layer that has it (so the number of
   builds is the number of distinct variants, not layers x variants), is profiled on the device
   (rpc/profile.py: on QEMU with the counting plugin instructions per operator and their mix, from
   which benchmarks/cycles.py estimates the core's cycles; else the platform timer).
3. Per layer signature (layers that look the same to the kernels share one choice) the variant
   with the smallest sum over its layers wins, if it beats the fixed rule by more than the noise
   margin (QEMU's counts move by a few instructions per SysTick interrupt, host time by more):
   otherwise the fixed rule stays. Ties go to the first name in sorted order, so the same
   measurements give the same record.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from ..errors import UtvmError
from ..selection import DEFAULT, layer_variant, optimizing, recording, variant_name

#: Variants explored per layer at most (the fixed rule included).
MAX_VARIANTS = 6
#: A variant replaces the fixed rule only when it saves more than this share (estimated cycles or
#: instructions on QEMU; time elsewhere) and, for the counted metrics, more than MARGIN_COUNTED.
MARGIN = {"cycles": 0.01, "instructions": 0.01, "seconds": 0.05}
MARGIN_COUNTED = 50
#: What a layer is chosen by, best first: estimated cycles (what a board's timer measures; a kernel
#: may trade instructions for cycles, e.g. loads in runs), QEMU's exact instruction count, time.
METRICS = ("cycles", "instructions", "seconds")
#: each metric's key in a profile's rows, and in the profile itself (its total)
_ROW = {"cycles": "cycles", "instructions": "instructions", "seconds": "seconds"}
_TOTAL = {"cycles": "total_cycles", "instructions": "total_instructions", "seconds": "total_seconds"}
DEVICE_TARGETS = {"host": "generic", "qemu-m4": "cortex-m4", "qemu-m55": "cortex-m55"}


def layer_variants(data: bytes, target: str, optimize: str = "balanced"
                   ) -> tuple[dict[str, list[str]], dict[str, dict], dict[int, str]]:
    """(signature key -> its variants, fixed rule first; key -> signature; operator index -> key),
    each layer prepared under its ``--optimize`` mode (compiler.layer_optimize)."""
    from ..compiler import layer_optimize, lower
    from ..ops import handler_for
    from ..tuning import layer_key, layer_signature
    from ..validate import operator_context

    g = lower(data)
    modes = layer_optimize(g, optimize)
    variants: dict[str, list[str]] = {}
    sigs: dict[str, dict] = {}
    keys: dict[int, str] = {}
    for sg in g.all_graphs:
        for op in sg.operators:
            key = layer_key(op, sg)
            keys[op.index] = key
            if key in variants:
                continue
            sigs[key] = layer_signature(op, sg)
            found: list[frozenset[str]] = [frozenset()]
            calls: dict[frozenset[str], tuple[str, ...]] = {}
            k = 0
            while k < len(found):
                with operator_context(op, sg), layer_variant(variant_name(found[k])), recording() as took, \
                        optimizing(modes[op.index]):
                    prep = handler_for(op.op).prepare(op, sg, target)
                calls[found[k]] = tuple(c.function for c in prep.calls)
                for fn in took:
                    nxt = found[k] | {fn}
                    if nxt not in found and len(found) < MAX_VARIANTS:
                        found.append(nxt)
                k += 1
            # a path the rule asked about but did not take (its kernel offered, the shape not fit):
            # excluding it changes no call, so it is no variant worth a build
            kept: list[frozenset[str]] = []
            for f in found:
                if all(calls[f] != calls[g] for g in kept):
                    kept.append(f)
            variants[key] = [variant_name(f) for f in kept]
    return variants, sigs, keys


def beats(value: float, fixed: float, metric: str) -> bool:
    """Is ``value`` better than the fixed rule's ``fixed`` beyond the measurement noise?"""
    floor = MARGIN_COUNTED if metric != "seconds" else 0
    return value < fixed - max(fixed * MARGIN[metric], floor)


def _metric_of(doc: dict, wanted: str | None) -> str:
    """The metric a profile gives: ``wanted`` (an error if it cannot), else the best it has."""
    if wanted is not None:
        if _TOTAL[wanted] not in doc:
            raise UtvmError(f"tune: --metric {wanted} needs QEMU and the counting plugin of a source checkout "
                            "(benchmarks/qemu_plugin); on the host use --metric seconds")
        return wanted
    return next(m for m in METRICS if _TOTAL[m] in doc)


def _toolchain(device: str) -> dict:
    from ..host import host_cc
    from ..tuning import toolchain
    from .build import ARM_CFLAGS, BOARDS

    if device == "host":
        cc = host_cc()
        return toolchain(cc[0], cc[1:] + ["-O2"])
    return toolchain("arm-none-eabi-gcc", ARM_CFLAGS + list(BOARDS[device].cpu_flags))


def tune_model(model: str | Path, *, device: str = "host", target: str | None = None, runs: int | None = None,
               input_fill: str = "random:0", log: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
               optimize: str = "balanced", metric: str | None = None) -> dict:
    """Measure the variants of every layer of ``model`` on ``device``; the tuning record (a dict).
    ``optimize``: the --optimize mode of every build (each layer's variants start from its choice;
    ``speed`` offers the int8-weight conv of every widened layer, ``without:utvm_conv2d_s8_q15w``).
    ``metric``: what a layer is chosen by (METRICS; default: the first the device measures)."""
    from ..compiler import compile_bytes, default_name, read_model_file
    from ..host import fill_inputs
    from ..options import CompileOptions
    from ..tuning import KIND, VERSION, signature_key
    from .profile import profile_model

    if device.startswith("serial:"):
        raise UtvmError("tune: --device serial:PORT is not supported yet (every variant is a new firmware "
                        "to flash); tune on qemu-m4|qemu-m55 or host")
    if device not in DEVICE_TARGETS:
        raise UtvmError(f"tune: unknown device {device!r} (one of {', '.join(DEVICE_TARGETS)})")
    if metric is not None and metric not in METRICS:
        raise UtvmError(f"tune: unknown metric {metric!r} (one of {', '.join(METRICS)})")
    target = target or DEVICE_TARGETS[device]
    CompileOptions(target=target, optimize=optimize).validate()
    from ..targets import TARGETS

    if device == "host" and TARGETS[target].folders:
        raise UtvmError(f"tune: --target {target} kernels need an Arm core with the DSP extension; on the host "
                        "use --target generic, or tune on --device qemu-m4|qemu-m55")
    runs = runs if runs is not None else (1 if device != "host" else 20)
    if runs < 1:
        raise UtvmError("tune: --runs must be at least 1")
    data = read_model_file(model)
    name = default_name(model)
    variants, sigs, keys = layer_variants(data, target, optimize)
    names = sorted({v for vs in variants.values() for v in vs} - {DEFAULT})
    meta = compile_bytes(data, name, CompileOptions(target=target, optimize=optimize)).metadata
    inputs = fill_inputs(meta["inputs"], input_fill)
    measured: dict[str, dict[str, float]] = {k: {} for k, vs in variants.items() if len(vs) > 1}
    wanted, metric = metric, None
    model_total: dict[str, float] = {}

    def total(doc: dict) -> float:
        return doc[_TOTAL[metric]]

    for v in [DEFAULT] + names:
        applies = sorted(k for k, vs in variants.items() if v in vs and v != DEFAULT)
        tuning = tuple((k, v) for k in applies) or None
        log(f"tune: {name}: variant {v} ({len(applies) if applies else 'all'} layer signatures)")
        doc = profile_model(model, inputs, device=device, runs=runs,
                            options=CompileOptions(target=target, tuning=tuning, optimize=optimize))
        if metric is None:
            metric = _metric_of(doc, wanted)
        elif _TOTAL[metric] not in doc:
            raise UtvmError(f"tune: the {metric} were measured for one build and not another")
        if v == DEFAULT:
            model_total["fixed_rules"] = total(doc)
        for row in doc["operators"]:
            key = keys.get(row["index"])
            if key in measured and v in variants[key]:
                measured[key][v] = measured[key].get(v, 0) + row[_ROW[metric]]
    layers = []
    first = {}
    for i, k in sorted(keys.items()):
        first.setdefault(k, i)
    for key in sorted(measured, key=lambda k: first[k]):   # in model order
        got = measured[key]
        if DEFAULT not in got:
            continue
        best = min(sorted(got), key=lambda v: (got[v], v != DEFAULT))
        if not beats(got[best], got[DEFAULT], metric):
            best = DEFAULT
        layers.append({"signature": sigs[key], "variant": best,
                       "measured": {v: got[v] for v in variants[key] if v in got}})
    default_total = sum(r["measured"][DEFAULT] for r in layers)
    tuned_total = sum(r["measured"][r["variant"]] for r in layers)
    builds = 1 + len(names)
    chosen = tuple(sorted((signature_key(r["signature"]), r["variant"]) for r in layers if r["variant"] != DEFAULT))
    if chosen:   # the whole model once more, as compile --tuning will build it
        log(f"tune: {name}: the tuned build ({len(chosen)} layer signatures changed)")
        doc = profile_model(model, inputs, device=device, runs=runs,
                            options=CompileOptions(target=target, tuning=chosen, optimize=optimize))
        model_total["tuned"] = total(doc)
        builds += 1
    else:        # nothing changed: compile --tuning gives the fixed rules' C, byte for byte
        model_total["tuned"] = model_total["fixed_rules"]
    doc = {"kind": KIND, "version": VERSION, "target": target, "toolchain": _toolchain(device),
           "device": device, "metric": metric, "model": name, "builds": builds,
           "model_total": model_total, "tunable": {"default": default_total, "tuned": tuned_total},
           "layers": layers}
    if optimize != "balanced":   # compile --tuning applies the record with this --optimize only
        doc["optimize"] = optimize
    return doc
