"""model.eval() only flips `training`: Dropout, BatchNorm and your own modules must read it."""

import torch
import torch.nn.functional as F
from torch import nn


class RunningMean(nn.Module):
    """Centres its inputs by a running average kept in a buffer (saved in the state_dict, moved
    by .to()), and updates the average only in training mode, as BatchNorm does."""

    def __init__(self, size):
        super().__init__()
        self.register_buffer("mean", torch.zeros(size))

    def forward(self, x):
        if self.training:
            with torch.no_grad():  # a statistic: nothing to backpropagate through
                self.mean.mul_(0.9).add_(x.mean(dim=0), alpha=0.1)
        return x - self.mean


class RunningMeanNoModeCheck(RunningMean):
    """The same module, written without looking at self.training."""

    def forward(self, x):
        with torch.no_grad():
            self.mean.mul_(0.9).add_(x.mean(dim=0), alpha=0.1)
        return x - self.mean


class Net(nn.Module):
    def __init__(self, running_mean_class):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.bn = nn.BatchNorm1d(16)
        self.drop = nn.Dropout(p=0.5)
        self.avg = running_mean_class(16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(self.avg(self.drop(F.relu(self.bn(self.fc1(x))))))


class BareFunctionalDropout(nn.Module):
    def forward(self, x):
        return F.dropout(x, p=0.5)  # `training` defaults to True, whatever the module's mode


class FunctionalDropout(nn.Module):
    def forward(self, x):
        return F.dropout(x, p=0.5, training=self.training)


def trained_net(device, running_mean_class):
    torch.manual_seed(0)
    net = Net(running_mean_class).to(device)
    net(torch.randn(32, 8, device=device))  # one training-mode forward fills the statistics
    x_test = torch.randn(32, 8, device=device) + 3.0  # shifted test data, as in real life
    return net, x_test


def frozen_backbone_step(device: str, bn_in_eval: bool) -> bool:
    """Fine-tune a head on a frozen backbone; report whether its BatchNorm statistics moved."""
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU()).to(device)
    head = nn.Linear(8, 1).to(device)
    backbone.requires_grad_(False)  # "frozen": no gradients, no optimizer updates
    model = nn.Sequential(backbone, head)
    model.train()  # for the head's sake: it also puts the backbone's BatchNorm in training mode
    if bn_in_eval:
        backbone.eval()  # re-apply after every model.train()
    before = backbone[1].running_mean.clone()
    head_opt = torch.optim.SGD(head.parameters(), lr=0.1)
    loss = model(torch.randn(16, 4, device=device) + 3.0).pow(2).mean()
    loss.backward()
    head_opt.step()
    return not torch.equal(before, backbone[1].running_mean)


def problem(device: str) -> dict:
    net, x_test = trained_net(device, RunningMeanNoModeCheck)

    # "Evaluation" under torch.no_grad() alone: the net is still in training mode.
    bn_before = net.bn.running_mean.clone()
    with torch.no_grad():
        out1 = net(x_test)
        out2 = net(x_test)
    training_during_eval = net.training
    bn_after = net.bn.running_mean.clone()

    # net.eval() alone: the mode is right, but autograd still records a graph. And the
    # running average that ignores `self.training` keeps updating.
    net.eval()
    avg_before = net.avg.mean.clone()
    out3 = net(x_test)

    block = BareFunctionalDropout().to(device).eval()
    y = block(torch.ones(64, device=device))

    # The two passes above differ for two separate reasons. Dropout alone:
    drop = nn.Dropout(p=0.5).to(device)  # a new module starts in training mode
    ones = torch.ones(64, device=device)
    dropout_alone_match = torch.equal(drop(ones), drop(ones))
    # And with Dropout silenced, the running average that ignores `training` still moves:
    net2, _ = trained_net(device, RunningMeanNoModeCheck)
    net2.drop.eval()
    with torch.no_grad():
        no_dropout_match = torch.allclose(net2(x_test), net2(x_test))
    return {
        "training_during_no_grad": training_during_eval,
        "dropout_alone_outputs_match": dropout_alone_match,
        "outputs_match_without_dropout": no_dropout_match,
        "outputs_match_across_calls": torch.allclose(out1, out2),
        "bn_running_mean_changed": not torch.equal(bn_before, bn_after),
        "bn_batches_tracked": int(net.bn.num_batches_tracked),
        "running_avg_changed_in_eval": not torch.equal(avg_before, net.avg.mean),
        "eval_output_requires_grad": out3.requires_grad,
        "custom_dropout_zeros_in_eval": int((y == 0).sum()),
        "frozen_bn_running_mean_changed": frozen_backbone_step(device, bn_in_eval=False),
    }


def fix(device: str) -> dict:
    net, x_test = trained_net(device, RunningMean)

    # net.eval() sets `training = False` on every submodule; no_grad() stops graph recording.
    net.eval()
    bn_before = net.bn.running_mean.clone()
    avg_before = net.avg.mean.clone()
    with torch.no_grad():
        out1 = net(x_test)
        out2 = net(x_test)
    in_eval = [not m.training for m in net.modules()]
    bn_changed = not torch.equal(bn_before, net.bn.running_mean)
    bn_batches = int(net.bn.num_batches_tracked)
    avg_changed_in_eval = not torch.equal(avg_before, net.avg.mean)

    block = FunctionalDropout().to(device).eval()
    y = block(torch.ones(64, device=device))

    # Back in training mode, the running average updates again.
    net.train()
    net(x_test)
    return {
        "all_modules_in_eval_mode": all(in_eval),
        "outputs_match_across_calls": torch.allclose(out1, out2),
        "bn_running_mean_changed": bn_changed,
        "bn_batches_tracked": bn_batches,
        "running_avg_changed_in_eval": avg_changed_in_eval,
        "running_avg_changed_in_train": not torch.equal(avg_before, net.avg.mean),
        "eval_output_requires_grad": out1.requires_grad,
        "custom_dropout_zeros_in_eval": int((y == 0).sum()),
        "frozen_bn_running_mean_changed": frozen_backbone_step(device, bn_in_eval=True),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
