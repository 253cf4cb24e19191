#!/usr/bin/python3
"""Side-by-side: the native TransE trainer against an OpenKE-style PyTorch TransE.

Both train on the same explicit split (made once with `ir2vec vocab split`) with the same
hyperparameters and epochs; rounds are interleaved so machine noise hits both alike. Reports
the median seconds per epoch of each (measured inside each trainer, start-up excluded), the
ratio, and filtered Hits@10 / MRR on the test split, both scored by `ir2vec vocab eval`.

  /usr/bin/python3 bench/vocab_train.py --ir2vec build/bin/ir2vec OPENKE_DIR [--epochs N]
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return r


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir", help="OpenKE directory (ir2vec triplets --format openke)")
    p.add_argument("--ir2vec", default=os.path.join(HERE, "..", "build", "bin", "ir2vec"))
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--dim", type=int, default=75)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--margin", type=float, default=1.0)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--threads", type=int, default=2, help="PyTorch threads")
    p.add_argument("--jobs", type=int, default=1, help="native trainer threads")
    a = p.parse_args()
    common = ["--dim", str(a.dim), "--epochs", str(a.epochs), "--batch-size", str(a.batch_size),
              "--margin", str(a.margin), "--lr", str(a.lr), "--distance", "l1",
              "--optimizer", "adam", "--corruption", "bernoulli"]
    with tempfile.TemporaryDirectory() as tmp:
        split = os.path.join(tmp, "split")
        run([a.ir2vec, "vocab", "split", a.dir, "-o", split])
        res = {"native": [], "torch": []}
        for rnd in range(a.rounds):
            for who in ("native", "torch"):
                out = os.path.join(tmp, "%s%d.h5" % (who, rnd))
                seed = str(rnd + 1)
                if who == "native":
                    r = run([a.ir2vec, "vocab", "train", split, "-o", out, "--seed", seed,
                             "-j", str(a.jobs)] + common)
                    spe = float(re.search(r"\(([0-9.]+) s/epoch\)", r.stderr).group(1))
                else:
                    r = run(["/usr/bin/python3", os.path.join(HERE, "transe_torch.py"), split,
                             "-o", out, "--seed", seed, "--threads", str(a.threads)] + common)
                    spe = json.loads(r.stdout)["seconds_per_epoch"]
                ev = json.loads(run([a.ir2vec, "vocab", "eval", split, "--vocab", out,
                                     "--json"]).stdout)["results"][0]["own_relations"]
                res[who].append((spe, ev["filtered"]["hits10"], ev["filtered"]["mrr"]))
        print("%d epochs, dim %d, batch %d, %d rounds (medians)" %
              (a.epochs, a.dim, a.batch_size, a.rounds))
        print("%-8s %12s %14s %10s" % ("trainer", "s/epoch", "filt. Hits@10", "filt. MRR"))
        med = {}
        for who, rows in res.items():
            med[who] = [statistics.median(x[i] for x in rows) for i in range(3)]
            print("%-8s %12.6f %14.4f %10.4f" % (who, *med[who]))
        print("speed-up per epoch: %.1fx" % (med["torch"][0] / med["native"][0]))


if __name__ == "__main__":
    main()
