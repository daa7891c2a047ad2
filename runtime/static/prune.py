"""``prune(program, feeds, fetches)``: the part of a Program the fetches need, as a new Program.

Works on the serialized form (``program_format``): the kept ops' dicts are copied,
sub-blocks no kept op reaches are dropped and the ``{"block": idx}`` references of
the rest renumbered, then the result is deserialized (and so validated) afresh.
"""
from .program_format import deserialize_program, serialize_program


def _sub_block_reads(op):
    """Every var name read by ops inside ``op``'s sub-blocks (recursively)."""
    names = set()
    for blk in op.sub_blocks():
        for inner in blk.ops:
            names.update(inner.input_arg_names)
            names |= _sub_block_reads(inner)
    return names


def _remap_blocks(value, mapping):
    if isinstance(value, list):
        return [_remap_blocks(v, mapping) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        (tag, body), = value.items()
        if tag == "block":
            return {"block": mapping[body]}
        if tag == "dict":
            return {"dict": {k: _remap_blocks(v, mapping) for k, v in body.items()}}
    return value


def _blocks_of(raw_op):
    found = []

    def walk(v):
        if isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict) and len(v) == 1:
            (tag, body), = v.items()
            if tag == "block":
                found.append(body)
            elif tag == "dict":
                for x in body.values():
                    walk(x)
    walk(list(raw_op["attrs"].values()))
    return found


def prune(program, feed_names, fetch_names):
    """A new Program with only the global-block ops the fetches need, given the feeds.

    Liveness is walked backwards from the fetches, so backward and optimizer ops
    (which only write gradients or update parameters after their last forward
    read) fall away; a cond/while is kept whole, with everything its sub-blocks
    read from outside.  Feed vars become data vars of the result.  A cond's
    'RngState' output (the generator state only a gradient's replay reads) is
    dropped when no kept op reads it, so an inference Program is the plain one.
    """
    gb = program.global_block()
    feeds, fetches = list(feed_names), list(fetch_names)
    for n in feeds + fetches:
        if n not in gb.vars:
            raise ValueError(f"prune: '{n}' is not a variable of the Program's global block")
    feed_set = set(feeds)
    needed, keep, used = set(fetches) - feed_set, [], set(feeds) | set(fetches)
    for i in reversed(range(len(gb.ops))):
        op = gb.ops[i]
        outs = set(op.output_arg_names)
        if not outs & needed:
            continue
        keep.append(i)
        reads = set(op.input_arg_names) | _sub_block_reads(op)
        used |= outs | reads
        needed = (needed - outs) | (reads - feed_set)
    for n in sorted(needed):
        v = gb.vars.get(n)
        if v is None or v.persistable:
            continue
        if v.is_data:
            raise ValueError(f"prune: the fetches need input '{n}', which is not among the feeds {feeds}")
        raise ValueError(f"prune: the fetches need '{n}', which no op before them defines")
    data = serialize_program(program)
    raw_global = data["blocks"][0]
    raw_global["ops"] = [raw_global["ops"][i] for i in sorted(keep)]
    reachable, stack = {0}, [0]
    while stack:
        for raw_op in data["blocks"][stack.pop()]["ops"]:
            for b in _blocks_of(raw_op):
                if b not in reachable:
                    reachable.add(b)
                    stack.append(b)
    order = sorted(reachable)
    mapping = {old: new for new, old in enumerate(order)}
    blocks = []
    for old in order:
        rb = data["blocks"][old]
        rb["idx"], rb["parent"] = mapping[old], (-1 if old == 0 else mapping[rb["parent"]])
        for raw_op in rb["ops"]:
            raw_op["attrs"] = {k: _remap_blocks(v, mapping) for k, v in raw_op["attrs"].items()}
        blocks.append(rb)
    reads = {n for rb in blocks for raw_op in rb["ops"] for names in raw_op["inputs"].values() for n in names}
    for rb in blocks:
        for raw_op in rb["ops"]:
            rng = raw_op["outputs"].get("RngState") if raw_op["type"] == "cond" else None
            if rng and not set(rng) & reads:
                del raw_op["outputs"]["RngState"]
                used -= set(rng)
    raw_global["vars"] = [v for v in raw_global["vars"] if v["name"] in used]
    for v in raw_global["vars"]:
        if v["name"] in feed_set:
            v["is_data"] = True
    data["blocks"] = blocks
    pruned = deserialize_program(data)
    pruned.bound_tensors = {n: t for n, t in program.bound_tensors.items() if n in pruned.global_block().vars}
    return pruned
