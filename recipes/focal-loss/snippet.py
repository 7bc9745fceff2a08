"""Focal loss on extreme logits: log(softmax) hits log(0); clamp hides it, log_softmax fixes it."""

import torch
import torch.nn.functional as F

GAMMA = 2.0  # the focusing parameter of Lin et al. (2017)


def make_batch(device: str):
    # Three samples, three classes. Row 0 is confidently wrong, row 1 confidently right,
    # row 2 ordinary. A logit gap of 120 makes exp(-120) ~ 8e-53, far below the smallest
    # float32 (~1.4e-45), so softmax returns an exact 0.0 for the losing classes.
    logits = torch.tensor(
        [[0.0, 120.0, 0.0], [120.0, 0.0, 0.0], [1.0, 0.5, -0.5]],
        device=device,
        requires_grad=True,
    )
    labels = torch.tensor([0, 0, 2], device=device)
    return logits, labels


def loss_vs_pt(device: str, form: str, gammas=(0.0, 2.0)) -> dict:
    """The focal loss of one sample against its true-class probability p_t, from p_t = 1e-61
    (a logit gap of 140) to p_t near 1, as series for a chart; `form` is how log p_t is taken."""
    gaps = torch.linspace(-6.0, 140.0, 74, dtype=torch.float64)
    # Two classes; the true one (0) sits `gap` below the other, so p_t = sigmoid(-gap).
    logits = torch.stack([torch.zeros_like(gaps), gaps], dim=1).float().to(device)
    labels = torch.zeros(len(gaps), dtype=torch.long, device=device)
    one_hot = torch.zeros(len(labels), 2, device=device)
    one_hot.scatter_(1, labels.view(-1, 1), 1.0)
    curves = {}
    for gamma in gammas:
        if form == "log_softmax":
            log_pt = (one_hot * F.log_softmax(logits, dim=1)).sum(dim=1)
            rows = -((1 - log_pt.exp()) ** gamma) * log_pt
        else:
            prob = F.softmax(logits, dim=1)
            if form == "clamp":
                prob = prob.clamp(min=1e-4, max=1.0)
            rows = -(one_hot * (1 - prob) ** gamma * prob.log()).sum(dim=1)
        curves[f"{form}, γ = {gamma:g}"] = rows.tolist()
    # x is the exact p_t, computed in float64, where 1e-61 does not underflow.
    return {"x": F.logsigmoid(-gaps).exp().tolist(), "y": curves}


def problem(device: str) -> dict:
    """The softmax focal loss in the style of the 2022 field note, minus its `.cuda()`."""
    logits, labels = make_batch(device)
    prob = F.softmax(logits, dim=1)
    prob.clamp(min=1e-4, max=1.0)  # BUG: clamp returns a new tensor, and it is thrown away
    one_hot = torch.zeros(len(labels), prob.size(1), device=labels.device)
    one_hot.scatter_(1, labels.view(-1, 1), 1.0)
    # log(0) = -inf; the one-hot mask then computes 0 * -inf = NaN for every zero class.
    row_loss = -(one_hot * (1 - prob) ** GAMMA * prob.log()).sum(dim=1)
    loss = row_loss.mean()
    loss.backward()
    return {
        "prob_min_after_clamp_call": prob.min().item(),
        "unassigned_clamp_loss_is_finite": bool(torch.isfinite(loss)),
        "loss_is_nan": bool(torch.isnan(loss)),
        "row_loss_is_finite": torch.isfinite(row_loss).tolist(),
        "grad_has_nan": bool(torch.isnan(logits.grad).any()),
        "loss_vs_pt": loss_vs_pt(device, "no clamp"),
    }


def fix(device: str) -> dict:
    """Cheap fix: assign the clamp. Better fix: take log-probabilities from the logits."""
    logits, labels = make_batch(device)
    # The same one-hot target, built on the labels' device (see scatter-one-hot).
    one_hot = torch.zeros(len(labels), logits.size(1), device=labels.device)
    one_hot.scatter_(1, labels.view(-1, 1), 1.0)

    # 1) The note's intent, with the clamp assigned. Finite, but clamp's gradient is zero
    #    wherever it clipped, so the confidently wrong sample stops teaching the model.
    prob = F.softmax(logits, dim=1)
    prob = prob.clamp(min=1e-4, max=1.0)
    clamped_rows = -(one_hot * (1 - prob) ** GAMMA * prob.log()).sum(dim=1)
    clamped_rows.mean().backward()
    clamped_grad = logits.grad
    logits.grad = None

    # 2) Better: log_softmax computes x - logsumexp(x) and never takes the log of an
    #    underflowed probability, so log p stays finite (about -120 here) and keeps its gradient.
    log_prob = F.log_softmax(logits, dim=1)
    log_pt = (one_hot * log_prob).sum(dim=1)  # 0 * finite = 0: the mask is safe now
    pt = log_pt.exp()
    focal_rows = -((1 - pt) ** GAMMA) * log_pt
    focal_rows.mean().backward()

    # The same log p_t straight from cross_entropy, with no one-hot at all.
    log_pt_ce = -F.cross_entropy(logits, labels, reduction="none")

    # On the ordinary row the textbook formula is fine, and both forms must agree there.
    textbook_row2 = -((1 - prob[2, 2]) ** GAMMA) * prob[2, 2].log()

    # 3) With gamma < 1 (the paper's ablation tries 0.5), (1 - pt) ** gamma has an infinite
    #    slope at pt == 1, and row 1 reaches pt == 1 exactly: inf * 0 is a NaN gradient.
    grad_nan = {}
    for name, floor in (("unclamped", 0.0), ("clamped_base", 1e-6)):
        logits.grad = None
        log_pt = F.log_softmax(logits, dim=1).gather(1, labels.view(-1, 1)).squeeze(1)
        pt = log_pt.exp()
        base = (1 - pt).clamp(min=floor) if floor else 1 - pt
        (-(base**0.5) * log_pt).mean().backward()
        grad_nan[name] = bool(torch.isnan(logits.grad).any())
    # The same focal loss over the whole range of p_t, for the chart: the assigned clamp
    # flattens it exactly where the hard examples are; log_softmax keeps it rising.
    clamped = loss_vs_pt(device, "clamp")
    exact = loss_vs_pt(device, "log_softmax", gammas=(2.0,))
    return {
        # The problem's measurements, on the log_softmax loss.
        "loss_is_nan": bool(torch.isnan(focal_rows.mean())),
        "row_loss_is_finite": torch.isfinite(focal_rows).tolist(),
        "grad_has_nan": bool(torch.isnan(logits.grad).any()),
        "clamped_loss_is_finite": bool(torch.isfinite(clamped_rows.mean())),
        "clamped_grad_has_nan": bool(torch.isnan(clamped_grad).any()),
        "clamped_grad_is_zero": bool((clamped_grad[0] == 0).all()),
        "clamped_wrong_row_loss": round(clamped_rows[0].item(), 3),
        "logsoftmax_loss_is_finite": bool(torch.isfinite(focal_rows.mean())),
        "logsoftmax_grad_has_nan": bool(torch.isnan(logits.grad).any()),
        "logsoftmax_grad_is_zero": bool((logits.grad[0] == 0).all()),
        "logsoftmax_wrong_row_loss": round(focal_rows[0].item(), 3),
        "cross_entropy_matches_one_hot": torch.allclose(log_pt, log_pt_ce),
        "matches_textbook_on_ordinary_row": torch.allclose(focal_rows[2], textbook_row2),
        "gamma_half_pt_one_grad_has_nan": grad_nan["unclamped"],
        "gamma_half_clamped_base_grad_has_nan": grad_nan["clamped_base"],
        "loss_vs_pt": {"x": clamped["x"], "y": {**clamped["y"], **exact["y"]}},
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
