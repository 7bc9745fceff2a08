"""`torch.save(model)` pickles the class by name: loading needs that exact name, and its code."""

import contextlib
import io
import pickletools
import sys
import types
import zipfile

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class NetV2(nn.Module):
    """The same model after a refactor: __init__ gained an attribute that forward uses."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.scale = 1.0

    def forward(self, x):
        return self.fc(x) * self.scale


@contextlib.contextmanager
def importable_as(module_name: str, cls: type, name: str = "MyNet"):
    """Make `cls` the class `module_name.MyNet` for a while: as a training script defines it
    (`__main__` under `python train.py`), or a module that is later renamed. What is saved
    inside is byte for byte what that script writes; once it ends, loading runs pickle's real
    lookup in the `__main__` of the process that loads, which, as in predict.py, has no MyNet."""
    created = module_name not in sys.modules
    module = sys.modules.setdefault(module_name, types.ModuleType(module_name))
    old = (cls.__module__, cls.__name__, cls.__qualname__)
    cls.__module__, cls.__name__, cls.__qualname__ = module_name, name, name
    setattr(module, name, cls)
    try:
        yield
    finally:
        delattr(module, name)
        cls.__module__, cls.__name__, cls.__qualname__ = old
        if created:
            del sys.modules[module_name]


def load(buf: io.BytesIO, **kwargs):
    buf.seek(0)
    return torch.load(buf, **kwargs)


def outcome(fn) -> str:
    try:
        fn()
        return "no error"
    except Exception as err:  # AttributeError, ModuleNotFoundError, UnpicklingError
        return f"{type(err).__name__}: {err}"[:2000]


def classes_named(buf: io.BytesIO) -> list:
    """The globals the file's pickle names (module and name), read without unpickling."""
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as archive:
        pkl = next(n for n in archive.namelist() if n.endswith("/data.pkl"))
        ops = pickletools.genops(archive.read(pkl))
        return sorted({arg.replace(" ", ".") for op, arg, _ in ops if op.name == "GLOBAL"})


def save(obj) -> io.BytesIO:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf


def problem(device: str) -> dict:
    torch.manual_seed(0)
    x = torch.randn(3, 4, device=device)
    # 1. train.py saves the whole model; predict.py, which does not define MyNet, loads it.
    with importable_as("__main__", Net):
        from_script = save(Net().to(device))
    # 2. The model class lived in models.py, which was later renamed or moved.
    with importable_as("models", Net):
        from_module = save(Net().to(device))
    # 3. The class is still there, but its code changed since the file was saved.
    with importable_as("models", Net):
        before_refactor = save(Net().to(device))
    with importable_as("models", NetV2):
        after_refactor = load(before_refactor, weights_only=False)  # loads without complaint
        refactored_forward = outcome(lambda: after_refactor(x))
    return {
        # What train.py wrote: the class as a name to look up, next to torch's own classes.
        "names_main_mynet": "__main__.MyNet" in classes_named(from_script),
        "loaded_elsewhere": outcome(lambda: load(from_script, weights_only=False)),
        "after_module_renamed": outcome(lambda: load(from_module, weights_only=False)),
        "after_class_changed": refactored_forward,
        # The default since 2.6, weights_only=True, refuses any pickled class.
        "default_load": outcome(lambda: load(from_module)),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    x = torch.randn(3, 4, device=device)
    # Save the state_dict: tensors under parameter names, no class, no code.
    with importable_as("__main__", Net):
        from_script = save(Net().to(device).state_dict())
    with importable_as("models", Net):
        from_module = save(Net().to(device).state_dict())

    def rebuild(buf, cls):  # the loading code builds the model itself, from whatever class
        model = cls().to(device)
        model.load_state_dict(load(buf, weights_only=True))
        return model(x)

    return {
        "names_main_mynet": "__main__.MyNet" in classes_named(from_script),
        "loaded_elsewhere": outcome(lambda: rebuild(from_script, Net)),
        "after_module_renamed": outcome(lambda: rebuild(from_module, Net)),
        "after_class_changed": outcome(lambda: rebuild(from_module, NetV2)),
        "default_load": outcome(lambda: load(from_module)),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
