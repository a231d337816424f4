"""Writes small seed inputs for the decoder fuzzer: real snapshot structure from our own trusted
fixtures, cut to a few hundred trace entries, at pickle protocols 2, 4 and 5."""
import gzip
import os
import pickle
import sys

here = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(here, "..", "..", "test", "fixtures", "snapshots")
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name in ("kvcache__default", "llm__cap004__default", "llm__expandable_segments_True"):
    with gzip.open(os.path.join(fixtures, name + ".pickle.gz")) as f:
        s = pickle.load(f)
    small = dict(s)
    small["segments"] = s["segments"][:3]
    for cut in (40, 300):
        small["device_traces"] = [t[-cut:] for t in s["device_traces"]]
        for protocol in (2, 4, 5):
            with open(os.path.join(out, f"{name}-{cut}-p{protocol}.pickle"), "wb") as f:
                pickle.dump(small, f, protocol=protocol)
with open(os.path.join(out, "plain-list.pickle"), "wb") as f:
    pickle.dump([1, 2.5, "x", b"y", None, True, (1, 2)], f, protocol=4)
