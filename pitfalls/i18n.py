"""The tool's own strings in English and Chinese, and choosing the language.

Shared by the CLI and the TUI. Recipe prose is not here: it lives in each recipe folder.
Over 400 lines as one cohesive thing: the string table, plus the two functions that read it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

DEFAULT_LANG = "en"
SUPPORTED = ("en", "zh")

STRINGS: dict[str, dict[str, str]] = {
    # list / show / search
    "col.id": {"en": "id", "zh": "编号"},
    "col.title": {"en": "title", "zh": "标题"},
    "col.tags": {"en": "tags", "zh": "标签"},
    "col.torch": {"en": "torch", "zh": "torch"},
    "col.source": {"en": "source", "zh": "来源"},
    "col.score": {"en": "score", "zh": "得分"},
    "torch.in": {"en": "holds", "zh": "适用"},
    "torch.out": {"en": "outside", "zh": "超出范围"},
    "torch.unknown": {"en": "no torch", "zh": "未装 torch"},
    "list.count": {"en": "{n} recipes", "zh": "共 {n} 个条目"},
    "list.theme_heading": {"en": "{theme} ({n})", "zh": "{theme}（{n}）"},
    "list.no_theme": {"en": "No theme", "zh": "未分类"},
    "list.torch_note": {
        "en": "torch column: whether each recipe's claim is declared for torch {version}",
        "zh": "torch 列：该条目的结论是否声明适用于 torch {version}",
    },
    "show.theme": {"en": "theme", "zh": "主题"},
    "show.checks": {"en": "What a run checks", "zh": "运行时检查什么"},
    "show.claims.problem": {
        "en": "Claims on the problem side (evidence that the pitfall reproduced)",
        "zh": "问题一侧的结论（证明问题确实复现）",
    },
    "show.claims.fix": {
        "en": "Claims on the fix side (evidence that the fix held)",
        "zh": "修复一侧的结论（证明修复确实有效）",
    },
    "show.invariants": {
        "en": "Invariants (true on both sides; checked on each, never counted as evidence)",
        "zh": "不变式（两侧都应成立；每侧都检查，但不算作证据）",
    },
    "show.context_note": {
        "en": "Any other observation the snippet returns is context: `pitfalls run` shows it "
        "and checks nothing about it.",
        "zh": "代码返回的其他观测值都是背景信息：`pitfalls run` 会显示，但不做检查。",
    },
    "theme.autograd": {"en": "Autograd", "zh": "自动求导"},
    "theme.numerics": {"en": "Losses and numerics", "zh": "损失函数与数值"},
    "theme.tensors": {"en": "Tensors and shapes", "zh": "张量与形状"},
    "theme.training": {"en": "Modules and the training loop", "zh": "模块与训练循环"},
    "theme.data": {"en": "Data loading", "zh": "数据加载"},
    "theme.serialization": {"en": "Saving and loading", "zh": "保存与加载"},
    "theme.devices": {"en": "Devices and CUDA", "zh": "设备与 CUDA"},
    "theme.precision": {"en": "Mixed precision and attention", "zh": "混合精度与注意力"},
    "theme.memory": {"en": "Memory", "zh": "内存与显存"},
    "theme.compile": {"en": "Compile and export", "zh": "编译与导出"},
    "theme.distributed": {"en": "Distributed training", "zh": "分布式训练"},
    "theme.mps": {"en": "Apple MPS", "zh": "Apple MPS"},
    "theme.environment": {"en": "Install and environment", "zh": "安装与环境"},
    "show.snippet": {"en": "Snippet", "zh": "代码"},
    "show.meta": {"en": "Recipe", "zh": "条目信息"},
    "show.aliases": {"en": "aliases", "zh": "别名"},
    "show.tags": {"en": "tags", "zh": "标签"},
    "show.devices": {"en": "devices", "zh": "设备"},
    "show.torch": {"en": "torch range", "zh": "torch 版本范围"},
    "show.related": {"en": "See also", "zh": "相关条目"},
    "show.references": {"en": "references", "zh": "参考资料"},
    "show.run_hint": {"en": "Run it: pitfalls run {id}", "zh": "动手运行：pitfalls run {id}"},
    "show.fallback": {
        "en": "No {wanted} prose for this recipe; showing {used}.",
        "zh": "该条目没有{wanted}版正文，以下显示{used}版。",
    },
    # the record of torch versions a recipe was checked on (pitfalls/catalogue/checked.py)
    "checked.label": {"en": "record", "zh": "检验记录"},
    "checked.held": {"en": "checked on torch {groups}", "zh": "已在 torch {groups}上检验"},
    "checked.group": {
        "en": "{versions} ({device}, {n} versions)",
        "zh": "{versions}（{device}，{n} 个版本）",
    },
    "checked.group_one": {"en": "{versions} ({device})", "zh": "{versions}（{device}）"},
    "checked.list_sep": {"en": ", ", "zh": "，"},
    "checked.sep": {"en": "; ", "zh": "；"},
    "checked.end": {"en": ".", "zh": "。"},
    "checked.claim_failed": {
        "en": "the claim does not hold on {versions} ({device})",
        "zh": "结论在 {versions}（{device}）上不成立",
    },
    "checked.error": {
        "en": "the snippet fails to run on {versions} ({device})",
        "zh": "代码在 {versions}（{device}）上无法运行",
    },
    "checked.none": {
        "en": "not yet checked across torch versions",
        "zh": "尚未在多个 torch 版本上检验",
    },
    "checked.stale_all": {
        "en": "checked on torch {groups}, but recorded for an earlier revision of this recipe",
        "zh": "曾在 torch {groups}上检验，但记录属于此条目的早期版本",
    },
    "checked.stale_none": {
        "en": "recorded for an earlier revision of this recipe only",
        "zh": "现有记录只属于此条目的早期版本",
    },
    "checked.stale_some": {
        "en": "{n} more rows recorded for an earlier revision",
        "zh": "另有 {n} 条记录属于此条目的早期版本",
    },
    "checked.no_gpu": {"en": "not yet checked on a GPU", "zh": "尚未在 GPU 上检验"},
    "checked.outside": {
        "en": "your torch {version} is outside every checked version",
        "zh": "你的 torch {version} 不在任何已检验的版本之内",
    },
    "lang.en": {"en": "English", "zh": "英文"},
    "lang.zh": {"en": "Chinese", "zh": "中文"},
    "trace.no_command": {
        "en": "name the command to run after `--`, e.g. `pitfalls trace -- python train.py`",
        "zh": "请在 `--` 之后给出要运行的命令，例如 `pitfalls trace -- python train.py`",
    },
    "trace.not_found": {
        "en": "{command}: command not found",
        "zh": "{command}：找不到该命令",
    },
    "trace.cannot_execute": {
        "en": "{command}: cannot be executed (not an executable file)",
        "zh": "{command}：无法执行（不是可执行文件）",
    },
    "trace.hint": {
        "en": "pitfalls: this error is explained by `{id}`: {title}",
        "zh": "pitfalls：这个错误可以参考条目 `{id}`：{title}",
    },
    "trace.read": {"en": "read it", "zh": "阅读"},
    "trace.run": {"en": "run it ", "zh": "运行"},
    "trace.doctor": {"en": "check this machine", "zh": "检查本机环境"},
    "search.not_confident": {
        "en": "no recipe explains this yet; closest: {closest}",
        "zh": "还没有条目能解释这个问题；最接近的：{closest}",
    },
    "search.none": {
        "en": "No recipe matches {query!r}. Try fewer words, or `pitfalls list`.",
        "zh": "没有条目匹配 {query!r}。试试更少的关键词，或运行 `pitfalls list`。",
    },
    "search.empty": {
        "en": "The query is empty. Pass words, or `-` to read an error message from stdin.",
        "zh": "查询为空。请给出关键词，或用 `-` 从标准输入读取报错信息。",
    },
    # run / verify
    "run.importing": {"en": "Importing torch…", "zh": "正在导入 torch…"},
    "run.running": {"en": "Running {id} on {device}…", "zh": "正在 {device} 上运行 {id}…"},
    "run.problem": {"en": "problem", "zh": "问题"},
    "run.fix": {"en": "fix", "zh": "修复"},
    "run.observation": {"en": "observation", "zh": "观测值"},
    "run.expectations": {"en": "Expectations", "zh": "预期检查"},
    "run.claims": {"en": "Claims", "zh": "结论"},
    "run.invariants": {
        "en": "Invariants (checked on both sides, not counted as evidence)",
        "zh": "不变式（两侧都检查，不算作证据）",
    },
    "run.context": {
        "en": "Context (observed, not checked): {keys}",
        "zh": "背景观测（只显示，不检查）：{keys}",
    },
    "run.reproduced": {"en": "reproduced", "zh": "问题复现"},
    "run.fixed": {"en": "fixed", "zh": "修复生效"},
    "run.yes": {"en": "yes", "zh": "是"},
    "run.no": {"en": "no", "zh": "否"},
    "run.verdict.held": {
        "en": "✓ The pitfall reproduced and the fix held.",
        "zh": "✓ 问题已复现，修复有效。",
    },
    "run.verdict.not_reproduced": {
        "en": "✗ The pitfall did not reproduce here.",
        "zh": "✗ 问题在这里没有复现。",
    },
    "run.verdict.not_fixed": {
        "en": "✗ The fix did not hold here.",
        "zh": "✗ 修复在这里没有生效。",
    },
    "run.verdict.invariant_failed": {
        "en": "✗ Reproduced and fixed, but an invariant failed: torch now behaves differently "
        "from what the recipe says of both sides.",
        "zh": "✗ 问题复现、修复也生效，但有一条两侧共有的不变式不成立："
        "torch 的行为已与条目所写的不同。",
    },
    "run.invariant_on": {"en": "invariant ({side})", "zh": "不变式（{side}）"},
    "run.verdict.error": {
        "en": "✗ The snippet failed: {message}",
        "zh": "✗ 代码运行失败：{message}",
    },
    "run.env": {
        "en": "on {device} ({device_name}), torch {torch}, Python {python}",
        "zh": "设备 {device}（{device_name}），torch {torch}，Python {python}",
    },
    "run.out_of_range": {
        "en": "Note: torch {torch} is outside this recipe's declared range {range}.",
        "zh": "注意：torch {torch} 不在该条目声明的版本范围 {range} 内。",
    },
    "run.device_not_declared": {
        "en": "Note: this recipe declares devices {devices}; running on {device} anyway.",
        "zh": "注意：该条目声明的设备是 {devices}，仍在 {device} 上运行。",
    },
    "run.output": {"en": "Snippet output", "zh": "代码输出"},
    "run.output_truncated": {
        "en": "Note: the snippet printed more than 64 KiB; only the last 64 KiB were kept.",
        "zh": "注意：代码输出超过 64 KiB，只保留了最后 64 KiB。",
    },
    "run.skipped": {"en": "skipped: {reason}", "zh": "已跳过：{reason}"},
    "run.n_a": {"en": "n/a here", "zh": "此处不适用"},
    # charts drawn from series observations (pitfalls/render/charts.py)
    "chart.summary": {
        "en": "{series} series × {points} points",
        "zh": "{series} 组序列 × {points} 个点",
    },
    "chart.log_axis": {"en": "{label} (log scale)", "zh": "{label}（对数刻度）"},
    "chart.top": {"en": "NaN or +inf, off the top", "zh": "NaN 或 +inf，超出上边"},
    "chart.bottom": {
        "en": "-inf (or <= 0 on a log axis), off the bottom",
        "zh": "-inf（或对数轴上 <= 0），超出下边",
    },
    "chart.not_finite": {
        "en": "{label}: {n} of {total} points cannot be drawn, marked {marks} at the edge",
        "zh": "{label}：{total} 个点中有 {n} 个无法画出，在边上标为 {marks}",
    },
    "chart.missing": {
        "en": "{label}: {n} of {total} points have no value or position and are left out",
        "zh": "{label}：{total} 个点中有 {n} 个没有数值或位置，未画出",
    },
    "chart.empty": {"en": "no finite point to draw", "zh": "没有可画出的有限值"},
    "chart.failed": {
        "en": "the chart “{title}” could not be drawn: {error}",
        "zh": "无法画出图表“{title}”：{error}",
    },
    "chart.unavailable": {
        "en": "charts need plotext 5 ({error}): `pip install 'plotext>=5.2.8,<6'`, "
        "or pass --no-plot",
        "zh": "画图需要 plotext 5（{error}）：请 `pip install 'plotext>=5.2.8,<6'`，"
        "或使用 --no-plot",
    },
    "verify.title": {"en": "verify on {device}", "zh": "在 {device} 上验证"},
    "verify.col.recipe": {"en": "recipe", "zh": "条目"},
    "verify.col.time": {"en": "time", "zh": "耗时"},
    "verify.col.reason": {"en": "reason", "zh": "原因"},
    "verify.summary": {
        "en": "{held} held, {claim_failed} claims failed, {error} failed to run, {skipped} skipped",
        "zh": "{held} 个成立，{claim_failed} 个结论不成立，{error} 个运行失败，{skipped} 个跳过",
    },
    "verify.progress": {"en": "Verifying", "zh": "验证中"},
    "verify.finding.both_hold": {
        "en": "the {side} claim `{claim}` also holds on the {other} side ({value}): it does not "
        "tell problem from fix",
        "zh": "{side}一侧的结论 `{claim}` 在{other}一侧也成立（{value}）：它区分不了问题与修复",
    },
    "verify.finding.no_claim": {
        "en": "no {side} claim fails on the {other} side's observations: nothing on this side "
        "tells problem from fix",
        "zh": "{side}一侧没有任何结论会在{other}一侧的观测值上不成立："
        "这一侧没有能区分问题与修复的结论",
    },
    "verify.finding.one_sided": {
        "en": " (claims on keys the {other} side does not return: {keys}; return them on both "
        "sides)",
        "zh": "（这些结论所用的键{other}一侧没有返回：{keys}；请两侧都返回）",
    },
    "verify.findings": {
        "en": "Claims that do not tell problem from fix",
        "zh": "区分不了问题与修复的结论",
    },
    "verify.findings_count": {
        "en": "{n} recipe(s) with claims that do not tell problem from fix",
        "zh": "{n} 个条目的结论区分不了问题与修复",
    },
    # errors
    "err.unknown": {"en": "No recipe named {word!r}.", "zh": "没有名为 {word!r} 的条目。"},
    "err.did_you_mean": {"en": "Did you mean: {names}?", "zh": "你是不是想找：{names}？"},
    "err.see_list": {"en": "See `pitfalls list`.", "zh": "运行 `pitfalls list` 查看全部条目。"},
    "err.ambiguous": {
        "en": "{word!r} matches several recipes: {names}. Type more of the id.",
        "zh": "{word!r} 匹配到多个条目：{names}。请输入更完整的编号。",
    },
    "err.bad_device": {
        "en": "{device!r} is not a device name. Use one of: {names}.",
        "zh": "{device!r} 不是有效的设备名。可选：{names}。",
    },
    "err.device_unavailable": {
        "en": "Device {device} is not available ({reason}). Available: {available}.",
        "zh": "设备 {device} 不可用（{reason}）。可用的设备：{available}。",
    },
    "err.torch_missing": {
        "en": (
            "torch is not installed for {python}. Install it with `pip install "
            "'pitfalls[torch]'` (or your own CUDA/ROCm build), or point --python / "
            "PITFALLS_PYTHON at an interpreter that has torch."
        ),
        "zh": (
            "{python} 中没有安装 torch。请运行 `pip install 'pitfalls[torch]'`"
            "（或安装你自己的 CUDA/ROCm 版本），或用 --python / PITFALLS_PYTHON "
            "指定一个装有 torch 的解释器。"
        ),
    },
    "err.python_missing": {"en": "{message}", "zh": "{message}"},
    "err.snippet_failed": {
        "en": "{id}: the snippet failed ({kind}): {message}",
        "zh": "{id}：代码运行失败（{kind}）：{message}",
    },
    "err.bad_lang": {
        "en": "Unknown language {name!r}; use en or zh.",
        "zh": "未知语言 {name!r}；请使用 en 或 zh。",
    },
    "err.load_problem": {
        "en": "pitfalls: skipped {path}: {reason}",
        "zh": "pitfalls：已跳过 {path}：{reason}",
    },
    "err.load_warning": {
        "en": "pitfalls: warning: {path}: {reason}",
        "zh": "pitfalls：警告：{path}：{reason}",
    },
    "err.interrupted": {"en": "Interrupted.", "zh": "已中断。"},
    "err.all_slow": {
        "en": "Every chosen recipe is marked slow: nothing is left to verify with --skip-slow.",
        "zh": "所选条目都标记为 slow：加上 --skip-slow 后没有可验证的条目。",
    },
    "err.no_tag": {
        "en": "No recipe has the tag {tag!r}.",
        "zh": "没有带标签 {tag!r} 的条目。",
    },
    "err.bad_theme": {
        "en": "No theme named {theme!r}; --theme takes one of: {themes}.",
        "zh": "没有名为 {theme!r} 的主题；--theme 可选：{themes}。",
    },
    "err.no_theme": {
        "en": "No recipe has the theme {theme!r}.",
        "zh": "没有属于主题 {theme!r} 的条目。",
    },
    "err.bad_jobs": {"en": "--jobs must be at least 1.", "zh": "--jobs 至少为 1。"},
    "err.bad_timeout": {
        "en": "--timeout must be a positive number of seconds.",
        "zh": "--timeout 必须是正数（秒）。",
    },
    # new / lint
    "new.created": {
        "en": "Created {path}/ with recipe.toml, en.md, zh.md and snippet.py.",
        "zh": "已创建 {path}/，包含 recipe.toml、en.md、zh.md 和 snippet.py。",
    },
    "new.next": {
        "en": (
            "Next: fill in every TODO, then `pitfalls lint {path}` and "
            "`PITFALLS_PATH={parent} pitfalls run {id}`."
        ),
        "zh": (
            "接下来：填写所有 TODO，然后运行 `pitfalls lint {path}` 和 "
            "`PITFALLS_PATH={parent} pitfalls run {id}`。"
        ),
    },
    "new.exists": {
        "en": "{path} already exists; choose another id or --dir (nothing was overwritten).",
        "zh": "{path} 已存在；请换一个编号或 --dir（没有覆盖任何文件）。",
    },
    "new.bad_id": {
        "en": "{id!r} is not a valid id: use lowercase letters, digits and single hyphens.",
        "zh": "{id!r} 不是有效的编号：只能用小写字母、数字和单个连字符。",
    },
    "new.cannot_write": {
        "en": "Cannot create {path}: {reason}. Check --dir.",
        "zh": "无法创建 {path}：{reason}。请检查 --dir。",
    },
    "new.clash": {
        "en": "Note: {id!r} is already a built-in id or alias; `pitfalls lint` will flag it.",
        "zh": "注意：{id!r} 已是内置条目的编号或别名；`pitfalls lint` 会报告此问题。",
    },
    "lint.bad_path": {
        "en": "{path} is not a folder. Pass recipe folders or folders of recipe folders.",
        "zh": "{path} 不是文件夹。请传入条目文件夹，或包含条目文件夹的文件夹。",
    },
    "lint.no_recipes": {
        "en": "No recipe folders in {path}.",
        "zh": "{path} 中没有条目文件夹。",
    },
    "lint.summary": {
        "en": "Checked {recipes} recipe folder(s): {errors} error(s), {warnings} warning(s).",
        "zh": "已检查 {recipes} 个条目：{errors} 个错误，{warnings} 个警告。",
    },
    "lint.clean": {
        "en": "Checked {recipes} recipe folder(s): no findings.",
        "zh": "已检查 {recipes} 个条目：未发现问题。",
    },
    # doctor
    "doctor.python": {"en": "Python", "zh": "Python"},
    "doctor.torch": {"en": "torch", "zh": "torch"},
    "doctor.not_installed": {"en": "not installed", "zh": "未安装"},
    "doctor.recipes": {"en": "recipes", "zh": "条目数"},
    "doctor.problems": {"en": "problems", "zh": "问题"},
    "doctor.none": {"en": "none", "zh": "无"},
    "doctor.devices": {"en": "devices", "zh": "设备"},
    "doctor.packs": {"en": "packs", "zh": "扩展包"},
    "doctor.checks": {"en": "Environment checks", "zh": "环境检查"},
    "doctor.group.torch": {"en": "torch and devices", "zh": "torch 与设备"},
    "doctor.group.libraries": {"en": "libraries", "zh": "依赖库"},
    "doctor.group.system": {"en": "system", "zh": "系统"},
    "doctor.status.ok": {"en": "ok", "zh": "正常"},
    "doctor.status.warning": {"en": "warning", "zh": "警告"},
    "doctor.status.problem": {"en": "problem", "zh": "问题"},
    "doctor.status.unknown": {"en": "could not check", "zh": "无法检查"},
    "doctor.see": {"en": "see", "zh": "参见"},
    "doctor.summary": {
        "en": "{problems} problem(s), {warnings} warning(s)",
        "zh": "{problems} 个问题，{warnings} 个警告",
    },
    # TUI
    "tui.filter": {"en": "Filter recipes (/)", "zh": "筛选条目（/）"},
    "tui.all_tags": {"en": "all tags", "zh": "全部标签"},
    "tui.claims.problem": {"en": "problem claims", "zh": "问题一侧的结论"},
    "tui.claims.fix": {"en": "fix claims", "zh": "修复一侧的结论"},
    "tui.invariants": {"en": "invariants", "zh": "不变式"},
    "tui.device": {"en": "device", "zh": "设备"},
    "tui.unavailable": {"en": "unavailable", "zh": "不可用"},
    "tui.prose": {"en": "Prose", "zh": "正文"},
    "tui.snippet": {"en": "Snippet", "zh": "代码"},
    "tui.run": {"en": "Run", "zh": "运行"},
    "tui.no_recipe": {"en": "Choose a recipe on the left.", "zh": "请在左侧选择一个条目。"},
    "tui.welcome.intro": {
        "en": "{n} PyTorch pitfalls, each with a snippet that shows the problem and its fix. "
        "Choose one on the left, or find it:",
        "zh": "共 {n} 个 PyTorch 陷阱，每个都配有一段能重现问题、再演示修复的代码。"
        "在左侧选一个，或者这样查找：",
    },
    "tui.welcome.type": {
        "en": "type words: ids, titles, tags and prose, in English or Chinese",
        "zh": "输入关键词：编号、标题、标签和正文都会搜索，中英文均可",
    },
    "tui.welcome.paste": {
        "en": "paste an error message or a whole traceback into the filter: the recipes "
        "that explain it come first",
        "zh": "把报错信息或整段 traceback 粘贴到筛选框：能解释它的条目排在最前面",
    },
    "tui.welcome.move": {
        "en": "move through the list; Enter opens a recipe, or folds its theme on a heading",
        "zh": "在列表中移动；回车打开条目，在主题标题上回车则折叠或展开",
    },
    "tui.welcome.fold": {
        "en": "fold or unfold one theme; f folds or unfolds them all",
        "zh": "折叠或展开一个主题；按 f 全部折叠或展开",
    },
    "tui.welcome.keys": {
        "en": "run the recipe, choose the device, check the environment, every key",
        "zh": "运行条目、选择设备、检查环境、查看全部快捷键",
    },
    "tui.welcome.themes": {"en": "Themes", "zh": "主题"},
    "tui.welcome.paste_key": {"en": "paste", "zh": "粘贴"},
    "tui.running": {"en": "Running… (c cancels)", "zh": "运行中…（按 c 取消）"},
    "tui.cancelled": {"en": "Cancelled.", "zh": "已取消。"},
    "tui.help_title": {"en": "Keys", "zh": "快捷键"},
    "tui.title": {"en": "pitfalls", "zh": "pitfalls"},
    "tui.subtitle": {"en": "PyTorch pitfalls you can run", "zh": "可以动手运行的 PyTorch 陷阱"},
    "tui.count": {"en": "{shown} of {total} recipes", "zh": "{shown} / {total} 个条目"},
    "tui.no_match": {
        "en": "No recipe matches the filter. Esc clears it.",
        "zh": "没有条目匹配筛选条件。按 Esc 清除。",
    },
    "tui.info": {"en": "Recipe", "zh": "条目信息"},
    "tui.output": {"en": "Run", "zh": "运行"},
    "tui.verify": {"en": "Verify", "zh": "验证"},
    "tui.summary": {"en": "summary", "zh": "摘要"},
    "tui.source": {"en": "source", "zh": "来源"},
    "tui.probing": {"en": "probing devices…", "zh": "正在检测设备…"},
    "tui.torch_version": {"en": "torch {version}", "zh": "torch {version}"},
    "tui.no_torch": {
        "en": "runner unavailable: {reason}",
        "zh": "无法运行代码：{reason}",
    },
    "tui.idle": {
        "en": "Press r to run {id} on the chosen device; c cancels a run.",
        "zh": "按 r 在所选设备上运行 {id}；按 c 取消运行。",
    },
    "tui.open_first": {
        "en": "Open a recipe first: choose it in the list and press Enter.",
        "zh": "请先打开一个条目：在列表中选中后按回车。",
    },
    "tui.busy": {
        "en": "Something is already running; press c to cancel it.",
        "zh": "已有任务在运行；按 c 取消。",
    },
    "tui.nothing_to_cancel": {"en": "Nothing is running.", "zh": "当前没有运行中的任务。"},
    "tui.device_unavailable": {
        "en": "{device} is not available here.",
        "zh": "此处不可用 {device}。",
    },
    "tui.run_failed": {"en": "The run failed", "zh": "运行失败"},
    "tui.error_kind": {"en": "{kind}: {message}", "zh": "{kind}：{message}"},
    "tui.verify_idle": {
        "en": "Press v to check every recipe's claim on the chosen device.",
        "zh": "按 v 在所选设备上验证所有条目的结论。",
    },
    "tui.verify_running": {
        "en": "Verifying on {device}… (c cancels)",
        "zh": "正在 {device} 上验证…（按 c 取消）",
    },
    "tui.verify_status": {"en": "status", "zh": "状态"},
    "tui.status.held": {"en": "held", "zh": "成立"},
    "tui.status.claim_failed": {"en": "claim failed", "zh": "结论不成立"},
    "tui.status.error": {"en": "failed to run", "zh": "运行失败"},
    "tui.status.unavailable": {"en": "unavailable", "zh": "不可用"},
    "tui.status.skipped": {"en": "skipped", "zh": "已跳过"},
    "tui.palette.open": {"en": "Open: {title}", "zh": "打开：{title}"},
    "tui.palette.run": {"en": "Run: {title}", "zh": "运行：{title}"},
    "tui.palette.help": {"en": "recipe {id}", "zh": "条目 {id}"},
    "tui.help_intro": {
        "en": (
            "Letter keys work whenever the filter is not focused, so typing in the filter "
            "never triggers them. Press / to filter and Esc to leave the filter."
        ),
        "zh": "筛选框未获得焦点时，字母快捷键才生效，因此在筛选框中输入不会触发它们。"
        "按 / 进入筛选框，按 Esc 离开。",
    },
    "tui.help_close": {"en": "Esc or ? closes this help.", "zh": "按 Esc 或 ? 关闭帮助。"},
    "tui.col.key": {"en": "key", "zh": "按键"},
    "tui.col.action": {"en": "action", "zh": "操作"},
    "tui.key.quit": {"en": "Quit", "zh": "退出"},
    "tui.key.help": {"en": "Help", "zh": "帮助"},
    "tui.key.lang": {"en": "中文", "zh": "English"},
    "tui.key.device": {"en": "Device", "zh": "设备"},
    "tui.key.filter": {"en": "Filter", "zh": "筛选"},
    "tui.key.leave": {"en": "Leave filter", "zh": "离开筛选框"},
    "tui.key.tag": {"en": "Tag", "zh": "标签"},
    "tui.key.run": {"en": "Run", "zh": "运行"},
    "tui.key.cancel": {"en": "Cancel run", "zh": "取消运行"},
    "tui.key.verify": {"en": "Verify all", "zh": "全部验证"},
    "tui.key.palette": {"en": "Commands", "zh": "命令"},
    "tui.key.open": {"en": "Open recipe", "zh": "打开条目"},
    "tui.key.tabs": {"en": "Next / previous tab", "zh": "下一个 / 上一个标签页"},
    "tui.key.fold": {"en": "Fold all", "zh": "全部折叠"},
    "tui.key.doctor": {"en": "Environment", "zh": "环境检查"},
    "tui.doctor.loading": {
        "en": "Checking the environment: a child process imports torch (a few seconds)…",
        "zh": "正在检查环境：子进程正在导入 torch（需要几秒钟）…",
    },
    "tui.doctor.hint": {
        "en": "Enter opens the recipe of the check under the cursor; Esc closes.",
        "zh": "回车打开光标所在检查项对应的条目；按 Esc 关闭。",
    },
    "tui.doctor.failed": {
        "en": "The checks could not run: {problem}",
        "zh": "无法完成检查：{problem}",
    },
    "tui.doctor.no_recipe": {
        "en": "The recipe {id} is not in this catalogue.",
        "zh": "当前目录中没有条目 {id}。",
    },
    "tui.key.group": {"en": "Fold / unfold a theme", "zh": "折叠 / 展开一个主题"},
    "tui.cannot_host": {
        "en": (
            "pitfalls tui needs an interactive terminal ({why}). Use `pitfalls list`, "
            "`pitfalls show ID` or `pitfalls run ID` instead."
        ),
        "zh": (
            "pitfalls tui 需要交互式终端（{why}）。请改用 `pitfalls list`、"
            "`pitfalls show ID` 或 `pitfalls run ID`。"
        ),
    },
}


def choose_language(explicit: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The language to use: an explicit choice, else PITFALLS_LANG, LANGUAGE, LC_ALL,
    LC_MESSAGES, LANG (a value starting with `zh` means Chinese), else English."""
    if explicit:
        return explicit
    env = os.environ if env is None else env
    for name in ("PITFALLS_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "").strip()
        if not value:
            continue
        first = value.split(":", 1)[0].lower()  # LANGUAGE is a colon-separated list
        if name == "PITFALLS_LANG" and first in SUPPORTED:
            return first
        if first in ("c", "posix") or first.startswith(("c.", "posix.")):
            continue  # the C locale says nothing about the reader's language
        return "zh" if first.startswith("zh") else DEFAULT_LANG
    return DEFAULT_LANG


def t(key: str, lang: str, **values: object) -> str:
    """The string `key` in `lang` (falling back to English), formatted with `values`."""
    entry = STRINGS[key]
    text = entry.get(lang) or entry[DEFAULT_LANG]
    return text.format(**values) if values else text
