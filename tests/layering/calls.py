#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The call graph of hv/, arch/ and drivers/, from the compiler's own view.

Every C file is compiled as the hypervisor is (the Makefile's KCFLAGS) with
GCC's -fcallgraph-info, which records each direct call that survives
inlining; a function is then placed in the file that defines it. Two rules
are checked (docs/architecture.md):

  rooms   a file of hv/ROOM calls only its own room and the rooms below it
          (HV_ROOMS in the Makefile, lowest first), hv/core, hv/lib, arch/
          and drivers/; arch/ and drivers/ call into hv/ only through the
          entry points declared in hv/upcalls.h; hv/lib calls out only to
          what its own headers declare for the program to provide (the
          log's output, which drivers/ defines in the hypervisor);
  circles no set of files calls each other in a loop, except through those
          entry points (the VM exit and the per-CPU loop are entered from
          arch/ by design).

Calls through a function pointer (a table row, a registered hook) are not
edges: that is how a lower room is handed work of a higher one.

  tests/layering/calls.py [--root DIR] [--rooms] [--files]
    --rooms   print the room-to-room edges (with a count of calls each)
    --files   print every file-to-file edge with the functions called
Ends with "CALLGRAPH files=N calls=N room_violations=N circles=N"; exit 0
only when both counts are 0.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def sh(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout


def make_var(root, name):
    out = subprocess.run(['make', '-s', '--no-print-directory', f'print-{name}'], cwd=root,
                         capture_output=True, text=True)
    if out.returncode:
        return None
    return out.stdout.strip()


def sources(root):
    found = []
    for top in ('hv', 'arch', 'drivers'):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith('.c'):
                    found.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(found)


def declared_in(paths):
    names = set()
    for path in paths:
        if os.path.exists(path):
            text = re.sub(r'/\*.*?\*/', '', open(path).read(), flags=re.S)
            text = re.sub(r'static inline[^{]*\{.*?\n\}', '', text, flags=re.S)
            names |= set(re.findall(r'\b([a-z_][a-z0-9_]*)\s*\(', text))
    return names - {'__attribute__', 'noreturn', 'sizeof'}


def upcall_names(root):
    return declared_in([os.path.join(root, 'hv', 'upcalls.h')])


def provided_names(root):
    """What hv/lib declares for the program that links it to define (the log's output)."""
    lib = os.path.join(root, 'hv', 'lib')
    heads = [os.path.join(lib, n) for n in os.listdir(lib) if n.endswith('.h')] \
        if os.path.isdir(lib) else []
    return declared_in(heads)


def room_of(path, rooms):
    parts = path.split('/')
    if parts[0] == 'hv':
        if len(parts) == 2:
            return 'hv'		# hv/upcalls.h and nothing else
        return parts[1]
    return parts[0]		# arch, drivers


def compile_all(root, files, cflags, out):
    for f in files:
        obj = os.path.join(out, f.replace('/', '__') + '.o')
        cmd = ['gcc'] + cflags + ['-fcallgraph-info', '-c', f, '-o', obj]
        r = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        if r.returncode:
            sys.stderr.write(r.stderr)
            sys.exit(f'calls.py: {f} does not compile')


NODE = re.compile(r'node: \{ title: "([^"]+)" label: "[^"]*"( shape : ellipse)? \}')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


def read_graph(root, files, out):
    defined = {}		# symbol title -> file
    calls = []		# (caller title, callee title, caller file)
    for f in files:
        ci = os.path.join(out, f.replace('/', '__') + '.ci')
        text = open(ci).read()
        for title, ellipse in NODE.findall(text):
            if not ellipse:
                defined[title] = f
        for src, dst in EDGE.findall(text):
            calls.append((src, dst, f))
    return defined, calls


def name_of(title, root):
    # static functions are "PATH:NAME", PATH as the compiler was given it
    return title.rsplit(':', 1)[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..', '..'))
    ap.add_argument('--rooms', action='store_true')
    ap.add_argument('--files', action='store_true')
    args = ap.parse_args()
    root = os.path.abspath(args.root)

    order = (make_var(root, 'HV_ROOMS') or '').split()
    cflags = (make_var(root, 'KCFLAGS') or '').split()
    if not order or not cflags:
        sys.exit('calls.py: make print-HV_ROOMS / print-KCFLAGS gave nothing')
    # TEMPO_VERSION's quotes do not survive the echo: any string will do here
    cflags = [c for c in cflags if c not in ('-MMD', '-MP') and
              not c.startswith('-DTEMPO_VERSION')] + ['-DTEMPO_VERSION="callgraph"']
    # the rooms below every hv room, lowest first
    rank = {'lib': 0, 'core': 1, 'drivers': 2, 'arch': 2}
    for i, r in enumerate(order):
        rank[r] = 10 + i
    ups = upcall_names(root)
    provided = provided_names(root)
    files = sources(root)

    with tempfile.TemporaryDirectory(prefix='tempo-calls.') as out:
        compile_all(root, files, cflags, out)
        defined, calls = read_graph(root, files, out)

    edges = {}		# (file, file) -> set of callee names
    violations = []
    ncalls = 0
    for src, dst, f in calls:
        to = defined.get(dst)
        if to is None or to == f:
            continue	# outside these files (builtins, the assembler's), or its own file
        ncalls += 1
        callee = name_of(dst, root)
        fr, tr = room_of(f, order), room_of(to, order)
        upcall = tr not in ('arch', 'drivers', 'lib', 'core') and fr in ('arch', 'drivers') \
            and callee in ups
        # hv/lib names an output that each program linking it provides
        if fr == 'lib' and tr != 'lib' and callee in provided:
            upcall = True
        if not upcall:
            edges.setdefault((f, to), set()).add(callee)
        if upcall:
            continue
        if fr in ('arch', 'drivers') and tr not in ('arch', 'drivers', 'lib', 'core'):
            violations.append(f'CALL_VIOLATION file={f} calls={callee} in={to} '
                              f'why=not_an_upcall')
        elif rank.get(tr, 99) > rank.get(fr, 99):
            violations.append(f'CALL_VIOLATION file={f} calls={callee} in={to} '
                              f'from={fr} to={tr} why=room_above')

    # circles: strongly connected components of the file graph (Tarjan)
    graph = {}
    for (a, b) in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, onstack, stack, sccs = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        onstack.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in onstack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    onstack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)

    if args.rooms:
        rooms = {}
        for (a, b), names in edges.items():
            ra, rb = room_of(a, order), room_of(b, order)
            if ra != rb:
                rooms[(ra, rb)] = rooms.get((ra, rb), 0) + len(names)
        for (ra, rb), n in sorted(rooms.items(), key=lambda e: (-rank.get(e[0][0], 99), e[0][1])):
            print(f'ROOM_EDGE from={ra} to={rb} functions={n}')
    if args.files:
        for (a, b), names in sorted(edges.items()):
            print(f'{a} -> {b}: {" ".join(sorted(names))}')
    for v in violations:
        print(v)
    for comp in sccs:
        ties = [f'{a} -> {b} ({",".join(sorted(edges[(a, b)]))})'
                for a in comp for b in comp if (a, b) in edges]
        print(f'CALL_CIRCLE files={",".join(comp)}')
        for t in ties:
            print(f'  {t}')
    print(f'CALLGRAPH files={len(files)} calls={ncalls} room_violations={len(violations)} '
          f'circles={len(sccs)}')
    return 1 if violations or sccs else 0


if __name__ == '__main__':
    sys.exit(main())
