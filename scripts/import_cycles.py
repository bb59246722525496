#!/usr/bin/env python3
"""Import cycles between the files of each crate: an edge A -> B when file A names module B in a
`use crate::`/`super::` path (braced groups included; comments skipped). Exits 1 and prints
each cycle if any crate has one. `.ci/run` runs it on every crate of the workspace.

    python3 scripts/import_cycles.py            # every crate's src/
    python3 scripts/import_cycles.py gpu-sim/src
"""
import glob
import os
import re
import sys

def mods(crate_src):
    files={}
    for root,_,fs in os.walk(crate_src):
        for f in fs:
            if f.endswith('.rs'):
                p=os.path.join(root,f); rel=os.path.relpath(p,crate_src)[:-3]
                m=rel.replace('/mod','').replace('/','::')
                if m in ('lib','main'): m=''
                files[m]='\n'.join(l for l in open(p).read().split('\n') if not l.strip().startswith('//'))
    return files
def edges(files):
    E={m:set() for m in files}
    for m,src in files.items():
        parent='::'.join(m.split('::')[:-1])
        for kw,path in re.findall(r'\b(crate|super)::([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)', src):
            base='' if kw=='crate' else parent
            parts=path.split('::')
            for k in range(len(parts),-1,-1):
                cand='::'.join([x for x in [base]+parts[:k] if x])
                if cand in files:
                    if cand!=m: E[m].add(cand)
                    break
        for kw,group in re.findall(r'\b(crate|super)::\{([^}]*)\}', src):
            base='' if kw=='crate' else parent
            for item in group.split(','):
                name=item.strip().split('::')[0].strip()
                cand='::'.join([x for x in [base,name] if x])
                if cand in files and cand!=m: E[m].add(cand)
    return E
def cycles(E):
    # Tarjan SCC
    idx={};low={};st=[];on=set();out=[];c=[0]
    def sc(v):
        idx[v]=low[v]=c[0];c[0]+=1;st.append(v);on.add(v)
        for w in E[v]:
            if w not in idx: sc(w);low[v]=min(low[v],low[w])
            elif w in on: low[v]=min(low[v],idx[w])
        if low[v]==idx[v]:
            comp=[]
            while True:
                w=st.pop();on.discard(w);comp.append(w)
                if w==v:break
            if len(comp)>1: out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in E:
        if v not in idx: sc(v)
    return out


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    dirs = sys.argv[1:] or sorted(
        os.path.relpath(os.path.dirname(p), root)
        for p in glob.glob(os.path.join(root, "**", "src", "lib.rs"), recursive=True)
        + glob.glob(os.path.join(root, "**", "src", "main.rs"), recursive=True)
        if "/target/" not in p
    )
    found = 0
    for d in sorted(set(dirs)):
        for cycle in cycles(edges(mods(os.path.join(root, d)))):
            print("import cycle in {}: {}".format(d, " <-> ".join(cycle)))
            found += 1
    if found:
        sys.exit(1)
    print("import cycles: none in {} crates".format(len(set(dirs))))


if __name__ == "__main__":
    main()
