"""Time as a view of the figure: a lane for each unit of an SM that works at once, each action a bar.

    tl = Timeline([("copy", "@k-2"), ("tensor", "@s-2"), ("sfu", "@m-2")], rates)   # rates: {key: count per second}
    c0 = tl.act("copy", "K0,V0", count=bytes_, rate="hbm")                          # bytes over HBM bytes/s
    s0 = tl.act("tensor", "S0", count=flops, rate="tensor", deps=[c0])              # FLOPs over FLOP/s

The model, which a page states: an action takes ``count / rates[rate]`` seconds (bytes over the SM's share of HBM
bandwidth, FLOPs over its tensor cores' FLOP/s, exponentials over its special-function units' rate: ``rates.py``).
It starts when its lane is free and every action of `deps` is done, no sooner: a lane is a unit that does one thing at
a time, in the order the kernel issues them (the actions are scheduled as they are recorded, so a dependency is
always an action recorded before). Different lanes run at the same time; the waits and barriers of the kernel are
the `deps`. Nothing else is modelled (no latency, no contention between lanes), so the time is what these units
alone impose: a bound in the roofline's sense, per block, with its units to itself.

The API is generic: lanes are names (a copy engine, tensor cores, the SFUs, a warp, a producer or consumer warpgroup),
rates are keys. ``Figure.timeline`` attaches one to a figure: each action then belongs to the step being recorded,
and ``items`` draws the bars at step k: the steps before it filled, its own outlined in ink (the highlight), the
steps after it as empty frames, so the whole schedule, gaps included, is visible from the start.
"""

LANE_H, LANE_GAP = 0.32, 0.12  # canvas units: a lane's bar height and the gap between lanes
LABEL_FONT, TITLE_FONT = 11, 13


class Action:
    """One thing a unit does: its `lane`, `label`, `count` (bytes, FLOPs, operations) at `rate` (a key of the
    timeline's rates), the actions it waits for (`deps`), the step it was recorded in (`step`), and, once
    scheduled, its `start`, `duration` and `end` in seconds."""

    def __init__(self, lane, label, count, rate, deps, step, start, duration):
        self.lane, self.label, self.count, self.rate, self.deps, self.step = lane, label, count, rate, deps, step
        self.start, self.duration, self.end = start, duration, start + duration

    def __repr__(self):
        return f"Action({self.lane!r}, {self.label!r}, {self.start:.3g}..{self.end:.3g} s)"


class Timeline:
    """Lanes and the actions scheduled on them (see the module docstring). `lanes`: [(name, colour)] in the order
    drawn, top first; `rates`: {key: count per second}, each > 0; `title`: what the timeline is the time of;
    `clock`: () -> the step an action recorded now belongs to (``Figure.timeline``'s: the step being recorded)."""

    def __init__(self, lanes, rates, title="time", clock=None):
        names = [name for name, _ in lanes]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"timeline: lanes must be distinct names with a colour each, got {lanes!r}")
        for key, rate in rates.items():
            if not isinstance(rate, (int, float)) or not rate > 0:
                raise ValueError(f"timeline: rate {key!r} must be a number > 0 (a count per second), got {rate!r}")
        self.lanes, self.rates, self.title = list(lanes), dict(rates), title
        self.actions, self.free, self.clock = [], dict.fromkeys(names, 0.0), clock or (lambda: 0)

    def act(self, lane, label, count, rate, deps=()):
        """Schedule an action (see the module docstring) and return it. Raises ValueError naming the lane, the
        rate or the count when one is unknown or negative, or when a dependency is not an action of this timeline."""
        if lane not in self.free:
            raise ValueError(f"timeline: {label}: lane {lane!r} is not one of {list(self.free)}")
        if rate not in self.rates:
            raise ValueError(f"timeline: {label}: rate {rate!r} is not one of {list(self.rates)}")
        if not isinstance(count, (int, float)) or count < 0:
            raise ValueError(f"timeline: {label}: count must be a number >= 0, got {count!r}")
        deps = [d for d in deps if d is not None]
        for d in deps:
            if not isinstance(d, Action) or d not in self.actions:
                raise ValueError(f"timeline: {label}: dependency {d!r} is not an action of this timeline")
        start = max([self.free[lane], *(d.end for d in deps)])
        action = Action(lane, label, count, rate, deps, self.clock(), start, count / self.rates[rate])
        self.free[lane] = action.end
        self.actions.append(action)
        return action

    @property
    def makespan(self):
        """When the last action ends (seconds; 0 with none)."""
        return max((a.end for a in self.actions), default=0.0)

    def busy(self, lane):
        """Seconds `lane` works (the sum of its actions' durations)."""
        return sum(a.duration for a in self.actions if a.lane == lane)

    def idle(self, lane):
        """Seconds `lane` waits between its first start and its last end."""
        mine = [a for a in self.actions if a.lane == lane]
        return (max(a.end for a in mine) - min(a.start for a in mine) - self.busy(lane)) if mine else 0.0

    def overlap(self, lane_a, lane_b):
        """Seconds during which `lane_a` and `lane_b` both work."""
        a = [(x.start, x.end) for x in self.actions if x.lane == lane_a]
        b = [(x.start, x.end) for x in self.actions if x.lane == lane_b]
        return sum(max(0.0, min(e1, e2) - max(s1, s2)) for s1, e1 in a for s2, e2 in b)


def seconds(t):
    """`t` seconds in words at three digits: '1.23 µs', '456 ns', '7.89 ms'."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if t >= scale or unit == "ns":
            return f"{t / scale:.3g} {unit}"
    return "0 s"


def name_room(timeline, grow=1.0):
    """The canvas units the lanes' names take left of the bars, at `grow` (see ``place``)."""
    return grow * (max(len(name) for name, _ in timeline.lanes) * 0.55 * LABEL_FONT / 44 + 0.15)


def place(timeline, left, right, top, grow=1.0):
    """Where the timeline goes: the fixed labels [(text, x, y, size)] (its title, each lane's name at its left) and
    the frame (x0, width, {lane: y of its bar's bottom}, bottom of it all). The bars span x0 .. x0 + width, which is
    `left` .. `right` less the room of the lanes' names. `grow`: how many times as wide and tall a label is in canvas
    units on a phone as at the pages' unit (figlib.layout.growth): the names and the lanes get room for that, and the
    title, centred over the timeline, is moved right as far as it must be not to start left of `left`."""
    names = [name for name, _ in timeline.lanes]
    room = name_room(timeline, grow)
    x0, width = left + room, max(1.0, right - left - room)
    title = f"{timeline.title}: {seconds(timeline.makespan)}"
    half = grow * len(title) * 0.55 * TITLE_FONT / 44 / 2  # the title's half width on a phone: it starts at `left`
    texts = [(title, max(left + (right - left) / 2, left + half), top - 0.15, TITLE_FONT)]
    pitch = max(LANE_H + LANE_GAP, 0.42 * grow)  # a lane's name, 11 px at a phone's zoom, clear of the next
    ys, y = {}, top - 0.2 - 0.4 * grow
    for name in names:
        y -= LANE_H
        ys[name] = y
        texts.append((name, left + room / 2 - 0.05, y + LANE_H / 2, LABEL_FONT))
        y -= pitch - LANE_H
    return texts, (x0, width, ys, y - 0.1)


def items(timeline, frame, k, item):
    """The bars at step k (see the module docstring): one item per action, in the order recorded, made by `item`
    (draw.item's signature), each with kv "timeline LANE" (the browser reads the lanes by it)."""
    x0, width, ys, _ = frame
    span = timeline.makespan or 1.0
    colour = dict(timeline.lanes)
    out = []
    for a in timeline.actions:
        x, w = x0 + width * a.start / span, max(0.02, width * a.duration / span)
        if a.step < k:
            fill, stroke = colour[a.lane], "none"
        elif a.step == k:
            fill, stroke = colour[a.lane], "@ink"
        else:
            fill, stroke = "none", "@edge"
        out.append(dict(item(x, ys[a.lane], w, LANE_H, fill, stroke), kv=f"timeline {a.lane}"))
    return out
