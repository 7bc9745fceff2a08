"""Chinese search tokens: known words as one token (most as their English word), the rest as
characters and bigrams.

Chinese has no spaces. Indexing every character and every bigram finds a word whatever its
form, but also makes a bigram of each pair of neighbouring words (模式下 gives 式下, 损失函数变成
gives 失函, 数变), and such junk, found in some recipe by chance, ranked a recipe above the
one the query describes. A word of the table below marks where words begin and end: it is one
token, and no bigram crosses it. What the table does not cover is read as characters and
bigrams, each counting for less than a word (search_index.token_weight).

Most words of the table are machine-learning terms that users write in Chinese or in English,
often in one sentence (损失 or loss, 梯度 or grad, 种子 or seed, 显存 or GPU memory); such a
word is its English word, stemmed like any English word, on the query and on the recipe alike.
So 损失函数变成 nan meets "loss becomes NaN", and the rarity of a word is the concept's, not that
of the few recipes that happen to write it in Chinese. A few common words stay Chinese (显存,
不一样), and function words (为什么, 的时候) are words without a token: they only mark
boundaries. Change the table and search_index.INDEX_VERSION must change with it.
"""

from __future__ import annotations

import re

# Bigrams of Chinese function words that say nothing about a pitfall.
CJK_STOP = frozenset(
    "为什么 什么 怎么 怎样 一个 这个 那个 我的 我们 时候 的时 了一 是不 不是 没有 可以 "
    "如何 以后 之后 问题 出现 总是 一直 然后 但是 因为 所以 还是 就是".split()
)
# Characters too common in questions to say anything alone.
CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那有和就都也还把被吗呢吧啊么什怎为个一不")
# Function characters: a bigram holding one is almost always a cross-word fragment (被改, 也被).
CJK_FUNCTION_CHARS = frozenset("的了也被都是在我你他她它就还把吗呢吧啊这那和很么来")

# Words -> their English words ("" for a function word: a boundary, no token).
_TERMS = {
    # losses and gradients
    "损失": "loss",
    "损失函数": "loss",
    "损失值": "loss",
    "梯度": "gradient",
    "爆炸": "explode",
    "梯度消失": "gradient vanish",
    "反向传播": "backward",
    "反向": "backward",
    "反传": "backward",
    "前向传播": "forward",
    "前向": "forward",
    "计算图": "graph",
    "叶子": "leaf",
    "叶节点": "leaf",
    "交叉熵": "cross_entropy",
    "收敛": "converge",
    "震荡": "oscillate",
    "振荡": "oscillate",
    "清零": "zero",
    "累加": "accumulate",
    "累积": "accumulate",
    "累计": "accumulate",
    # reproducibility and randomness
    "种子": "seed",
    "随机种子": "random seed",
    "复现": "reproducibility",
    "可复现": "reproducibility",
    "重现": "reproducibility",
    "确定性": "determinism",
    "随机": "random",
    "数据增强": "augmentation",
    "增强": "augmentation",
    "打乱": "shuffle",
    # memory
    "显存": "显存 memory",
    "显卡内存": "显存 memory",
    "内存": "memory",
    "爆显存": "显存 memory oom",
    "显存不够": "显存 memory oom",
    "显存不足": "显存 memory oom",
    "显存溢出": "显存 memory oom",
    "涨": "grow",
    "增长": "grow",
    "增加": "grow",
    "上涨": "grow",
    "变大": "grow",
    "越来越大": "grow",
    "越来越多": "grow",
    "泄漏": "leak",
    "泄露": "leak",
    # training and evaluation
    "训练": "train",
    "模型": "model",
    "验证": "validation",
    "验证集": "validation",
    "评估": "evaluation",
    "测试": "test",
    "测试集": "test",
    "推理": "inference",
    "预测": "predict",
    "学习率": "learning rate",
    "调度器": "scheduler",
    "优化器": "optimizer",
    "批次": "batch",
    "批量": "batch",
    "准确率": "accuracy",
    "正确率": "accuracy",
    "冻结": "freeze",
    "微调": "fine-tune",
    "保存": "save",
    "加载": "load",
    "权重": "weight",
    "参数": "parameter",
    "标签": "label",
    "样本": "sample",
    "数据集": "dataset",
    "归一化": "normalise",
    "标准化": "normalise",
    "分类": "classification",
    "二分类": "binary classification",
    "回归": "regression",
    "卷积": "conv",
    "全连接": "linear",
    "特征": "feature",
    "通道": "channel",
    "图片": "image",
    "图像": "image",
    "序列": "sequence",
    "注意力": "attention",
    "填充": "pad",
    # numbers and types
    "精度": "precision",
    "半精度": "fp16 float16",
    "混合精度": "mixed precision amp",
    "单精度": "float32",
    "双精度": "float64 double",
    "浮点": "float",
    "浮点数": "float",
    "溢出": "overflow",
    "上溢": "overflow",
    "下溢": "underflow",
    "整数": "integer",
    "除法": "division",
    "整除": "division",
    "均值": "mean",
    "平均": "mean",
    "求和": "sum",
    # tensors
    "张量": "tensor",
    "维度": "dim",
    "形状": "shape",
    "视图": "view",
    "拷贝": "copy",
    "副本": "copy",
    "复制": "copy",
    "广播": "broadcast",
    "索引": "index",
    "下标": "index",
    "原地": "in-place",
    "越界": "range",
    "断言": "assert",
    "初始化": "initialise",
    "缓存": "cache",
    # devices and processes
    "显卡": "gpu",
    "设备": "device",
    "多卡": "multi gpu",
    "单卡": "single gpu",
    "分布式": "distributed",
    "多进程": "multiprocessing",
    "进程": "process",
    "子进程": "process",
    "线程": "thread",
    "计时": "timing",
    "耗时": "time",
    "时间": "time",
    "速度": "speed",
    # compile and export
    "编译": "compile",
    "编译器": "compiler",
    "重新编译": "recompile",
    "重编译": "recompile",
    "反复编译": "recompile",
    "图中断": "graph break",
    "图断裂": "graph break",
    "断图": "graph break",
    "导出": "export",
    "动态形状": "dynamic shape",
    "静态形状": "static shape",
    "预热": "warmup",
    "钩子": "hook",
    "算子": "operator",
    # attention and precision
    "注意力掩码": "attention mask",
    "掩码": "mask",
    "遮罩": "mask",
    "掩膜": "mask",
    "因果掩码": "causal mask",
    "填充位置": "pad",
    "补齐": "pad",
    "序列长度": "sequence length",
    "变长": "variable length",
    "长度": "length",
    "打包": "pack",
    "缩放": "scale",
    "灰度": "grayscale",
    "灰度图": "grayscale image",
    "单通道": "single channel",
    # memory
    "显存碎片": "显存 memory fragmentation",
    "碎片": "fragmentation",
    "碎片化": "fragmentation",
    "预留": "reserved",
    "字节": "bytes",
    # distributed
    "进程组": "process group",
    "主进程": "main process",
    "端口": "port",
    "端口被占用": "port in use",
    "被占用": "in use",
    "卡住": "hang",
    "卡死": "hang",
    "挂起": "hang",
    "超时": "timeout",
    "多机": "multi node",
    "节点": "node",
    "指标": "metric",
    "汇总": "gather",
    "聚合": "gather",
    "检查点": "checkpoint",
    "激活检查点": "activation checkpoint",
    "梯度检查点": "gradient checkpoint",
    "续训": "resume",
    "断点续训": "resume",
    # Apple MPS and the environment
    "苹果芯片": "apple silicon mps",
    "苹果": "apple",
    "下载": "download",
    "白名单": "allowlist",
    "安装": "install",
    "版本": "version",
    "升级": "upgrade",
    "降级": "downgrade",
    "导入": "import",
    "循环导入": "circular import",
    "环境变量": "environment variable",
    "利用率": "utilization",
    "吞吐": "throughput",
    "吞吐量": "throughput",
    "不支持": "unsupported",
    # Common words kept as they are: one token each, and no bigram across them.
    "不一样": "不一样",
    "不一致": "不一样",
    "不同": "不一样",
    "一样": "一样",
    "相同": "一样",
    "结果": "结果",
    # Words a function word below would split (同一个 is 同一 and 个, not 同 and 一个).
    "同一个": "同一",
    "每一个": "每个",
    "第一个": "第一",
    # Function words, and words every report has (as English's stopwords: error, problem,
    # work, after, still): boundaries only.
    **dict.fromkeys(
        "为什么 为啥 怎么办 怎么 什么 怎样 如何 是不是 有没有 要不要 能不能 会不会 的时候 时候 "
        "之后 以后 之前 以前 然后 但是 可是 因为 所以 就是 还是 已经 一个 这个 那个 这样 那样 "
        "我们 我的 可以 问题 出现 总是 一直 没有 求助 请问 大佬 各位 谢谢 请教 有人 知道 是否 "
        "一半 到底 明明 好像 感觉 过程 过程中 期间 最后 最终 突然 一下 一点 有点 一些 其实 发现 "
        "报错 错误 解决 求解 怎么回事 不行 没用 没效果 没有效果 不起作用 不生效 没生效 "
        "应该 需要 可能 导致 直接 进行 使用 用了 通过 比较 非常 特别 这里 那里 里面".split(),
        "",
    ),
}
_LONGEST = max(map(len, _TERMS))
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


def has_chinese(text: str) -> bool:
    """Whether `text` holds Chinese characters."""
    return not text.isascii() and _CJK.search(text) is not None


def chinese_runs(text: str) -> list[str]:
    """The runs of Chinese characters in `text`."""
    return _CJK.findall(text)


def _segment(run: str) -> list[tuple[str, bool]]:
    """`run` as pieces (text, is a word of the table): the words cover as many characters as
    they can, in as few pieces as possible (随机数据增强: 随机 | 数据增强, not 随机数 | 据 | 增强).
    Linear in the length of the run."""
    n = len(run)
    # best[i]: (characters covered, -pieces) for run[:i]; back[i]: where its last piece starts
    best = [(0, 0)] + [(-1, 0)] * n
    back = [0] * (n + 1)
    for start in range(n):
        covered, pieces = best[start]
        for end in range(start + 1, min(n, start + _LONGEST) + 1):
            known = run[start:end] in _TERMS
            if not known and end > start + 1:
                continue
            score = (covered + (end - start if known else 0), pieces - 1)
            if score > best[end]:
                best[end], back[end] = score, start
    result: list[tuple[str, bool]] = []
    end = n
    while end:
        start = back[end]
        piece = run[start:end]
        result.append((piece, piece in _TERMS))
        end = start
    return result[::-1]


def chinese_tokens(run: str) -> tuple[list[str], list[str]]:
    """(English words, Chinese tokens) of a run of Chinese characters: the words of its
    known words, and the characters and bigrams of each stretch between them."""
    english: list[str] = []
    found: list[str] = []
    stretch = ""
    for piece, known in [*_segment(run), ("", True)]:
        if not known:
            stretch += piece
            continue
        if stretch:
            found.extend(f"#{char}" for char in stretch if char not in CJK_STOP_CHARS)
            found.extend(
                bigram
                for bigram in (stretch[i : i + 2] for i in range(len(stretch) - 1))
                if bigram not in CJK_STOP and not (CJK_FUNCTION_CHARS & set(bigram))
            )
            stretch = ""
        for word in _TERMS[piece].split() if piece else ():
            (english if word.isascii() else found).append(word)
    return english, found
