"""RNNs default to (seq, batch, feature): a (batch, seq, feature) input runs and mixes samples."""

import torch
from torch import nn

BATCH, SEQ, FEAT, HIDDEN = 8, 10, 4, 5


def features(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    out, (h_n, c_n) = lstm(x)
    return out[:, -1, :]  # "the last time step of every sample", as (batch, seq, ...) reads


def leak_and_memory(lstm: nn.LSTM, x: torch.Tensor) -> dict:
    """Perturb one sample and see which samples' features move."""
    with torch.no_grad():
        base = features(lstm, x)
        other = x.clone()
        other[0] += 1.0  # change sample 0 only
        moved = (features(lstm, other) - base).abs().amax(dim=1) > 1e-4
        early = x.clone()
        early[3, :-1] += 1.0  # change every step of sample 3 except the last
        own_history = (features(lstm, early)[3] - base[3]).abs().max() > 1e-4
    return {
        "other_samples_moved": int(moved[1:].sum()),
        "feature_sees_own_history": bool(own_history),
    }


def run_with_h0(lstm: nn.LSTM, x: torch.Tensor) -> str:
    """Pass an initial state in the documented layout (num_layers, batch, hidden)."""
    h0 = torch.zeros(1, BATCH, HIDDEN, device=x.device)
    try:
        with torch.no_grad():
            lstm(x, (h0, h0.clone()))
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    torch.manual_seed(0)
    x = torch.randn(BATCH, SEQ, FEAT, device=device)  # (batch, seq, feature), as loaders give
    lstm = nn.LSTM(FEAT, HIDDEN).to(device)  # batch_first=False by default
    with torch.no_grad():
        out, (h_n, c_n) = lstm(x)
    obs = {
        "out_shape": list(out.shape),
        "h_n_shape": list(h_n.shape),
        "feature_shape": list(features(lstm, x).shape),
    }
    obs.update(leak_and_memory(lstm, x))
    obs["h0_error"] = run_with_h0(lstm, x)  # only an explicit initial state trips over it
    # Not only LSTM: these all default to (seq, batch, ...) too.
    obs["defaults_batch_first"] = [
        nn.GRU(4, 4).batch_first,
        nn.RNN(4, 4).batch_first,
        nn.MultiheadAttention(4, 1).batch_first,
        nn.TransformerEncoderLayer(4, 1).self_attn.batch_first,
    ]
    return obs


def fix(device: str) -> dict:
    torch.manual_seed(0)
    x = torch.randn(BATCH, SEQ, FEAT, device=device)
    lstm = nn.LSTM(FEAT, HIDDEN, batch_first=True).to(device)
    with torch.no_grad():
        out, (h_n, c_n) = lstm(x)
    obs = {
        "out_shape": list(out.shape),
        "h_n_shape": list(h_n.shape),  # still (num_layers, batch, hidden): batch_first skips it
        "feature_shape": list(features(lstm, x).shape),
        "last_step_equals_h_n": bool(torch.allclose(out[:, -1, :], h_n[-1])),
    }
    obs.update(leak_and_memory(lstm, x))
    obs["h0_error"] = run_with_h0(lstm, x)

    # The other fix: keep the default and hand the LSTM (seq, batch, feature) yourself.
    seq_first = nn.LSTM(FEAT, HIDDEN).to(device)
    seq_first.load_state_dict(lstm.state_dict())
    with torch.no_grad():
        out_sf, _ = seq_first(x.transpose(0, 1))
    obs["transpose_matches_batch_first"] = bool(
        torch.allclose(out_sf.transpose(0, 1), out, atol=1e-6)
    )
    return obs


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
