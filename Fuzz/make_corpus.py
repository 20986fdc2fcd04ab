#!/usr/bin/env python3
"""Writes the seed corpus for table_fuzzer.c into Fuzz/corpus/.

Each seed is a short program in the fuzzer's input format (see the comment at
the top of table_fuzzer.c); together they reach every op at least once, in
both the real-hash and the forced-collision modes.
"""
import pathlib

INSERT, REMOVE, FOREIGN, REINSERT, CLEAR, GROW, SHRINK, MASK, WALK = range(9)
MASK_FULL, MASK_ZERO, MASK_3, MASK_7 = range(4)


def key(type_, signature, name):
    """Pool key id: 4 types x 3 signatures x 6 names (none, "", "a", "a\\0b", long, long')."""
    return type_ + 4 * signature + 12 * name


def ops(*pairs):
    return bytes(b for pair in pairs for b in pair)


SEEDS = {
    "insert-lookup": bytes([0]) + ops(*[(INSERT, key(0, 0, n)) for n in range(6)],
                                      *[(FOREIGN, key(0, 0, n)) for n in range(6)]),
    "overwrite": bytes([0]) + ops((INSERT, 5), (INSERT, 5), (INSERT, 5), (WALK,)),
    "remove": bytes([0]) + ops((INSERT, 1), (INSERT, 2), (REMOVE, 1), (REMOVE, 1), (REMOVE, 3), (WALK,)),
    "reinsert": bytes([0]) + ops((INSERT, 3), (REINSERT, 3), (REINSERT, 3), (REINSERT, 3), (WALK,)),
    "clear": bytes([0]) + ops(*[(INSERT, k) for k in range(10)], (CLEAR,),
                              *[(INSERT, k) for k in range(5)], (WALK,)),
    "grow-shrink": bytes([0]) + ops((GROW, 0, 127), (WALK,), (SHRINK, 0, 63), (GROW, 64, 127), (WALK,)),
    "names-colliding": bytes([0]) + ops((MASK, MASK_ZERO),
                                        *[(INSERT, key(1, 2, n), FOREIGN, key(1, 2, n)) for n in range(6)],
                                        (REMOVE, key(1, 2, 4)), (FOREIGN, key(1, 2, 5)), (WALK,)),
    "mask-zero": bytes([0]) + ops((MASK, MASK_ZERO), *[(INSERT, k) for k in range(0, 72, 5)],
                                  (REMOVE, 10), (REINSERT, 20), (WALK,), (MASK, MASK_FULL)),
    "mask-3": bytes([0]) + ops((MASK, MASK_3), *[(INSERT, k) for k in range(0, 72, 7)],
                               (REINSERT, 14), (REMOVE, 21), (MASK, MASK_FULL), (WALK,)),
    "mask-7-growth": bytes([4]) + ops((MASK, MASK_7), (GROW, 0, 100), (SHRINK, 10, 50), (GROW, 5, 30),
                                      (WALK,), (MASK, MASK_FULL)),
    "tombstone-churn": bytes([0]) + ops(*[(INSERT, k % 7, REMOVE, k % 7) for k in range(40)], (WALK,)),
    "clear-colliding": bytes([0]) + ops((MASK, MASK_ZERO), (GROW, 0, 50), (CLEAR,), (INSERT, 7),
                                        (WALK,), (MASK, MASK_FULL), (INSERT, 8)),
    "presized": bytes([255]) + ops((GROW, 0, 127), (CLEAR,), (INSERT, 0)),
}

corpus = pathlib.Path(__file__).resolve().parent / "corpus"
corpus.mkdir(exist_ok=True)
for name, data in SEEDS.items():
    (corpus / name).write_bytes(data)
