"""Write a small self-play dataset, load it, and fit a behaviour-cloning model with numpy.

    python examples/load_selfplay.py [FOLDER]

Plays 200 games of Panda Head between heuristic bots (docs/selfplay.md), then learns to predict
the heuristic bot's move from the observation: a softmax over the 24 actions, illegal actions
masked out, trained by gradient descent on 150 games and tested on the other 50.
Needs the dataset extra: pip install 'panda-core[dataset]'.
"""

from __future__ import annotations

import sys
import tempfile

import numpy as np

from panda_core.selfplay import iter_batches, selfplay


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    logits = np.where(mask, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def main(folder: str) -> None:
    # 1. Write: 200 episodes, 4 heuristic seats, in this process (workers=0 keeps it simple).
    info = selfplay(folder, game="head", players=4, bots="heuristic", episodes=200, workers=0)
    print(f"wrote {info.decisions} decisions of {info.episodes} games to {info.path}")

    # 2. Load the columns a policy needs, as numpy arrays. The files store each observation's
    #    non-zero entries and the legal action ids; iter_batches rebuilds the dense
    #    "observation" and "legal_mask" arrays when they are asked for.
    columns = ["episode", "observation", "legal_mask", "action"]
    parts = list(iter_batches(folder, columns=columns))
    episode = np.concatenate([b["episode"] for b in parts])
    x = np.concatenate([b["observation"] for b in parts])  # (n, 96) float32
    mask = np.concatenate([b["legal_mask"] for b in parts])  # (n, 24) bool
    y = np.concatenate([b["action"] for b in parts])  # (n,) action ids
    train, test = episode < 150, episode >= 150  # split by game, not by decision
    x_train, mask_train, y_train = x[train], mask[train], y[train]

    # 3. Fit: logits = x W + b, cross-entropy over the legal actions, plain gradient descent.
    rng = np.random.default_rng(0)
    w = rng.normal(0, 0.01, (x.shape[1], mask.shape[1])).astype(np.float32)
    b = np.zeros(mask.shape[1], dtype=np.float32)
    onehot = np.eye(mask.shape[1], dtype=np.float32)[y_train]
    for step in range(200):
        p = masked_softmax(x_train @ w + b, mask_train)
        grad = (p - onehot) / len(y_train)
        w -= 0.5 * (x_train.T @ grad)
        b -= 0.5 * grad.sum(axis=0)
        if step % 50 == 0:
            loss = -np.log(p[np.arange(len(p)), y_train] + 1e-9).mean()
            print(f"step {step:3d}  loss {loss:.3f}")

    # 4. Evaluate on the held-out games, against picking a legal action at random.
    predicted = np.where(mask[test], x[test] @ w + b, -np.inf).argmax(axis=1)
    right = predicted == y[test]
    choices = mask[test].sum(axis=1)
    print(
        f"held-out accuracy {right.mean():.1%} (a random legal move: {(1 / choices).mean():.1%}); "
        f"where there was a choice: {right[choices > 1].mean():.1%} "
        f"(random: {(1 / choices[choices > 1]).mean():.1%})"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(f"{tmp}/head")
