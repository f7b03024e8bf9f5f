"""Several models in one firmware: ``utvm-build compile-group`` (docs/output.md "Model groups").

The models of a group are compiled with the same options against one C runtime. Memory: a
model's workspace is scratch used only while its run executes, so models the application declares
*exclusive* (they never run at the same time, e.g. a wake word and the command model it starts)
share one workspace pool, sized for the largest of them; every other model gets a pool of its
own, so models that may run at once never overlap. All pools live in one array of the group.
States (what a model keeps between runs) are never shared. Code: a kernel function that several
members call is compiled once, in the group's kernel file, and the members call it there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .compiler import Compiled, Planned, default_name, plan_bytes, read_model_file
from .emit.cnames import c_identifier
from .emit.crt_config import CrtNeeds, render_crt_config
from .emit.group import GroupLink, GroupText, Member, group_header, group_source, kernels_source
from .emit.output import write_output
from .errors import UtvmError
from .kernel_table import spec
from .options import CompileOptions
from .targets import kernel_text, kernel_variant

#: Where each member's generated directory goes inside the group's directory.
MODELS_DIR = "models"


@dataclass
class GroupCompiled:
    name: str
    members: list[Compiled]
    files: dict[str, bytes]

    @property
    def metadata(self) -> dict:
        return json.loads(self.files["metadata.json"])


def parse_model_arg(arg: str) -> tuple[str | None, Path]:
    """``NAME=path.tflite`` or ``path.tflite`` (the name then comes from the file name)."""
    name, sep, path = arg.partition("=")
    if sep and re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        return name, Path(path)
    return None, Path(arg)


def _pools(names: list[str], exclusive: list[list[str]]) -> list[list[str]]:
    """Each exclusive set is one pool; every other model has its own. In the order of the models."""
    seen: dict[str, int] = {}
    for k, group in enumerate(exclusive):
        for n in dict.fromkeys(group):   # a name twice in one set is that name once
            if n not in names:
                raise UtvmError(f"--exclusive names '{n}', which is not a model of the group "
                                f"(models: {', '.join(names)})")
            if n in seen:
                raise UtvmError(f"model '{n}' is in two --exclusive sets; merge them (a model has one pool)")
            seen[n] = k
    pools: list[list[str]] = []
    placed: dict[int, int] = {}
    for n in names:
        k = seen.get(n)
        if k is None:
            pools.append([n])
        elif k in placed:
            pools[placed[k]].append(n)
        else:
            placed[k] = len(pools)
            pools.append([n])
    return pools


def _round_up(n: int, align: int) -> int:
    return (n + align - 1) // align * align


def plan_group(models: list[tuple[str | None, Path]], options: CompileOptions) -> list[Planned]:
    if options.workspace != "static":
        raise UtvmError("a model group places the workspace itself: use --workspace static "
                        "(the default) with compile-group")
    if options.name:
        raise UtvmError("compile-group names each model NAME=model.tflite, not with --name")
    planned = []
    for name, path in models:
        planned.append(plan_bytes(read_model_file(path), name or default_name(path), options, path.name))
    names = [p.name for p in planned]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UtvmError(f"two models of the group are named '{dup[0]}'; name one NAME=model.tflite")
    return planned


def compile_group(models: list[tuple[str | None, Path]], out_dir: str | Path, group: str,
                  exclusive: list[list[str]] | None = None, options: CompileOptions | None = None,
                  *, incremental: bool = False) -> GroupCompiled:
    """Compile the models into one group directory ``out_dir`` (written as ``compile`` writes one)."""
    result = render_group(models, group, exclusive or [], options or CompileOptions())
    write_output(Path(out_dir), result.files, incremental=incremental)
    return result


def render_group(models: list[tuple[str | None, Path]], group: str, exclusive: list[list[str]],
                 options: CompileOptions) -> GroupCompiled:
    if not models:
        raise UtvmError("a model group needs at least one model")
    if not group or c_identifier(group) != group:
        raise UtvmError(f"group name '{group}' is not a lowercase C identifier (letters, digits, _)")
    planned = plan_group(models, options)
    names = [p.name for p in planned]
    if group in names:
        raise UtvmError(f"the group and one of its models are both named '{group}'; give the group another --group")
    by_name = {p.name: p for p in planned}
    align = max(p.options.workspace_align for p in planned)
    target = options.target

    pool_sets = _pools(names, exclusive)
    pools: list[tuple[int, int, tuple[str, ...]]] = []
    offset = 0
    for members in pool_sets:
        size = _round_up(max(by_name[n].plan.workspace_bytes for n in members), align)
        pools.append((offset, size, tuple(members)))
        offset += size
    total = offset
    pool_of = {n: k for k, (_o, _s, members) in enumerate(pools) for n in members}

    # Kernel functions called by two members or more: compiled once.
    calls = {p.name: p.kernel_functions for p in planned}
    counts: dict[str, int] = {}
    for fns in calls.values():
        for fn in fns:
            counts[fn] = counts.get(fn, 0) + 1
    shared = {fn: spec(fn, target).params for fn, n in sorted(counts.items()) if n > 1}
    shared_headers = sorted({spec(fn, target).header for fn in shared})

    files: dict[str, bytes] = {}
    compiled: list[Compiled] = []
    members: list[Member] = []
    for p in planned:
        k = pool_of[p.name]
        link = GroupLink(group=group, pool_index=k, pool_offset=pools[k][0], pool_bytes=pools[k][1],
                         pool_members=pools[k][2], workspace_bytes=total, pool_count=len(pools),
                         shared={fn: shared[fn] for fn in sorted(calls[p.name]) if fn in shared})
        c = p.render(link)
        compiled.append(c)
        members.append(Member(p.name, p.plan.workspace_bytes, p.plan.state_bytes, k))
        for rel, data in c.files.items():
            files[f"{MODELS_DIR}/{p.name}/{rel}"] = data

    banner = f"/* Generated by utvm-build {__version__} for the model group {group}. Do not edit. */"
    text = GroupText(group=group, banner=banner, members=members, pools=pools, workspace_bytes=total,
                     workspace_align=align, workspace_section=options.workspace_section, shared=shared,
                     shared_headers=shared_headers)
    prefix = text.prefix
    own: dict[str, str] = {
        f"include/{prefix}.h": group_header(text),
        f"src/{prefix}.c": group_source(text),
        f"src/{prefix}_kernels.c": kernels_source(text),
    }
    kernel_files = _kernel_closure(set(shared_headers) | {"common"}, target) if shared else []
    for k in kernel_files:
        own[f"src/kernels/{k}.h"] = kernel_text(k, target)
    crts = [c.metadata["crt"] for c in compiled]
    needs = CrtNeeds(max_args=max(c["max_args"] for c in crts), max_ndim=max(c["max_ndim"] for c in crts),
                     function_name_len=max(c["max_strlen_function_name"] for c in crts),
                     param_name_len=max(c["max_strlen_param_name"] for c in crts),
                     packed=any(c["packed"] for c in crts))
    own["include/crt_config.h"] = render_crt_config(banner, needs)
    state = sum(m.state_bytes for m in members)
    meta = {
        "kind": "group", "name": group, "prefix": prefix, "generator_version": __version__,
        "options": options.as_dict(), "target": target,
        "models": [{"name": m.name, "dir": f"{MODELS_DIR}/{m.name}", "pool": m.pool,
                    "workspace_bytes": m.workspace_bytes, "state_bytes": m.state_bytes,
                    "model_sha256": by_name[m.name].sha256} for m in members],
        "pools": [{"index": k, "offset": o, "bytes": s, "models": list(ms)} for k, (o, s, ms) in enumerate(pools)],
        "exclusive": [list(e) for e in exclusive],
        "workspace_bytes": total, "workspace_alignment": align,
        "separate_workspace_bytes": sum(m.workspace_bytes for m in members),
        "state_bytes": state, "ram_bytes": total + state,
        "shared_kernel_functions": sorted(shared),
        "kernel_variants": {k: kernel_variant(k, target) for k in kernel_files},
        "sources": sorted(f for f in own if f.endswith(".c")),
        "include_dirs": ["include"],
        "link_libraries": ["m"] if any("<math.h>" in own[f"src/kernels/{k}.h"] for k in kernel_files) else [],
        "crt": needs.as_dict(),
    }
    own["metadata.json"] = json.dumps(meta, indent=2, sort_keys=True) + "\n"
    files.update({rel: t.encode() for rel, t in own.items()})
    return GroupCompiled(name=group, members=compiled, files=files)


def _kernel_closure(names: set[str], target: str) -> list[str]:
    from .emit.model import _kernel_closure as closure

    return closure(names, target)
