#!/usr/bin/python3
"""OpenKE-style TransE in PyTorch: the reference the native trainer is measured against.

Same model and hyperparameters as `ir2vec vocab train`: L1 or L2 distance, margin ranking
loss over one corrupted triplet per true one, Bernoulli or uniform corruption with filtered
negatives, entity vectors normalised (OpenKE's norm_flag), Adam or SGD, minibatches in a
shuffled order. Negative sampling is vectorised with NumPy so that Python overhead is not
what gets measured. Reads an OpenKE directory with explicit valid/test files
(`ir2vec vocab split`), writes an ir2vec.vocabulary/1 HDF5 file so that `ir2vec vocab eval`
scores both trainers with the same code, and prints one JSON line with seconds per epoch.
Needs Debian's python3-torch, python3-numpy and python3-h5py (run with /usr/bin/python3).
"""
import argparse, json, os, time

import h5py
import numpy as np
import torch


def read_triplets(path):
    with open(path) as f:
        n = int(f.readline())
        a = np.loadtxt(f, dtype=np.int64, ndmin=2)
    assert a.shape == (n, 3), path
    return a


def read_names(path):
    with open(path) as f:
        n = int(f.readline())
        names = [None] * n
        for line in f:
            name, i = line.rstrip("\n").split("\t")
            names[int(i)] = name
    return names


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("-o", required=True)
    p.add_argument("--dim", type=int, default=75)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--margin", type=float, default=1.0)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--distance", choices=["l1", "l2"], default="l1")
    p.add_argument("--optimizer", choices=["adam", "sgd"], default="adam")
    p.add_argument("--corruption", choices=["uniform", "bernoulli"], default="bernoulli")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()

    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rng = np.random.default_rng(a.seed)
    train = read_triplets(os.path.join(a.dir, "train2id.txt"))  # head, tail, relation
    ents = read_names(os.path.join(a.dir, "entity2id.txt"))
    rels = read_names(os.path.join(a.dir, "relation2id.txt"))
    ne, nr = len(ents), len(rels)
    key = lambda h, t, r: (h * ne + t) * nr + r
    known = np.sort(key(train[:, 0], train[:, 1], train[:, 2]))

    # Bernoulli: P(replace head) = tph / (tph + hpt) per relation.
    head_p = np.full(nr, 0.5)
    if a.corruption == "bernoulli":
        for r in range(nr):
            sel = train[train[:, 2] == r]
            if len(sel):
                tph = len(sel) / len(np.unique(sel[:, 0]))
                hpt = len(sel) / len(np.unique(sel[:, 1]))
                head_p[r] = tph / (tph + hpt)

    ent = torch.nn.Embedding(ne, a.dim)
    rel = torch.nn.Embedding(nr, a.dim)
    torch.nn.init.xavier_uniform_(ent.weight.data)
    torch.nn.init.xavier_uniform_(rel.weight.data)
    params = list(ent.parameters()) + list(rel.parameters())
    opt = (torch.optim.Adam(params, lr=a.lr) if a.optimizer == "adam"
           else torch.optim.SGD(params, lr=a.lr))
    pnorm = 1 if a.distance == "l1" else 2

    def score(h, r, t):
        hv = torch.nn.functional.normalize(ent(h), 2, -1)
        tv = torch.nn.functional.normalize(ent(t), 2, -1)
        return torch.norm(hv + rel(r) - tv, pnorm, -1)

    def corrupt(batch):
        neg = batch.copy()
        todo = np.arange(len(batch))
        side = rng.random(len(batch)) < head_p[batch[:, 2]]
        for _ in range(32):  # redraw known triplets (filtered negatives)
            if not len(todo):
                break
            col = np.where(side[todo], 0, 1)
            neg[todo, col] = rng.integers(0, ne, len(todo))
            k = key(neg[todo, 0], neg[todo, 1], neg[todo, 2])
            pos = np.searchsorted(known, k)
            hit = (pos < len(known)) & (known[np.minimum(pos, len(known) - 1)] == k)
            todo = todo[hit]
        return neg

    times = []
    for epoch in range(a.epochs):
        t0 = time.perf_counter()
        order = rng.permutation(len(train))
        total = 0.0
        for s in range(0, len(train), a.batch_size):
            b = train[order[s:s + a.batch_size]]
            n = corrupt(b)
            bt, nt = torch.from_numpy(b), torch.from_numpy(n)
            ps = score(bt[:, 0], bt[:, 2], bt[:, 1])
            ns = score(nt[:, 0], nt[:, 2], nt[:, 1])
            loss = torch.clamp(a.margin + ps - ns, min=0).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(b)
        times.append(time.perf_counter() - t0)

    with torch.no_grad():
        e = torch.nn.functional.normalize(ent.weight, 2, -1).double().numpy()
        r = rel.weight.double().numpy()
    tmp = a.o + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.attrs["schema"] = "ir2vec.vocabulary/1"
        f.attrs["dimension"] = np.int64(a.dim)
        f.attrs["created_by"] = "bench/transe_torch.py (PyTorch %s)" % torch.__version__
        f["entities"] = e
        f["entity_names"] = np.array(ents, dtype=h5py.string_dtype())
        f["relations"] = r
        f["relation_names"] = np.array(rels, dtype=h5py.string_dtype())
    os.replace(tmp, a.o)
    print(json.dumps({"seconds_per_epoch": sum(times) / len(times), "epochs": a.epochs,
                      "final_loss": total / len(train)}))


if __name__ == "__main__":
    main()
