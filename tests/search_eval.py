# ruff: noqa: E501
"""An evaluation set for `pitfalls search`: queries as PyTorch users write them, with the
recipe that should answer each, and queries that no recipe should answer confidently.

How it was written
------------------
For every recipe folder in `recipes/` the author read the `## Symptom` and `## Why` sections
of `en.md` to understand the pitfall, and then wrote the queries without the recipe's
`recipe.toml` open: not copied or lightly paraphrased from its `errors`, `legacy_errors`,
`[questions]`, title or summary. Each recipe gets up to three cases:

- "error": a pasted traceback or warning, the way it appears in a GitHub issue, a forum post
  or a notebook: frames with file paths (Linux, macOS, Windows, site-packages, conda), the
  user's code lines, progress bars, log lines before it, `[rank1]:` prefixes, chained
  exceptions, CUDA assertion lines, and the messages' real variants (other shapes, other node
  names, older wordings such as `expected scalar type Long but found Int`). Recipes whose
  pitfall never raises or warns have no error case; the detach recipe has none either, since
  its only error belongs to the in-place recipe.
- "en": the symptom described in the user's own words, often naming their setting (DANN,
  NER, YOLO, BERT, PPO) rather than the mechanism, with the odd lowercase or informal phrasing.
- "zh": a Chinese description as typed on Zhihu or CSDN, with the usual English terms
  (loss, batch, dataloader, BN) mixed in.

The existing `tests/test_search.py` phrasings were avoided, so this set measures the
mechanism on text neither the recipes nor the unit tests were tuned on.

`UNRELATED` holds 30 queries (English and Chinese) that no recipe explains: other libraries
(pandas, Keras, JAX, transformers, matplotlib), installation and driver setup, generic Python
errors, and vague complaints; a few are deliberate near misses (a Keras shape error, a pandas
removed-method error, "what learning rate should I use") that share words with recipes.

`ACCEPTABLE` lists, for a few cases whose text is genuinely shared by two recipes (the same
message raised by two different mistakes), the other recipe that would be a defensible
answer. The strict numbers ignore it; the evaluation script reports a lenient number too.

This is data for a measurement (see the session's evaluation script), not a pytest module:
nothing here is collected as a test.
"""

# (query, expected recipe id, kind) with kind in "error", "en", "zh".
CASES = [
    # ------------------------------------------------------------------ backward-non-scalar
    (
        """Epoch 0 | step 0
Traceback (most recent call last):
  File "train_reg.py", line 57, in <module>
    losses.backward()
  File "/home/kai/miniconda3/envs/pt/lib/python3.11/site-packages/torch/_tensor.py", line 581, in backward
    torch.autograd.backward(
  File "/home/kai/miniconda3/envs/pt/lib/python3.11/site-packages/torch/autograd/__init__.py", line 340, in backward
    grad_tensors_ = _make_grads(tensors, grad_tensors_, is_grads_batched=False)
  File "/home/kai/miniconda3/envs/pt/lib/python3.11/site-packages/torch/autograd/__init__.py", line 198, in _make_grads
    raise RuntimeError(
RuntimeError: grad can be implicitly created only for scalar outputs""",
        "backward-non-scalar",
        "error",
    ),
    (
        "I set reduction='none' on my loss so I can weight each sample myself, and now calling "
        ".backward() on it complains. someone on SO said just pass torch.ones_like(loss) — is "
        "that the same thing as averaging? training got much less stable after that",
        "backward-non-scalar",
        "en",
    ),
    (
        "loss 设成 reduction='none' 之后直接 backward 就报错，网上说传一个 ones_like 进去就行，"
        "但这样训练好像变得很不稳定，是不是梯度被放大了？",
        "backward-non-scalar",
        "zh",
    ),
    # ------------------------------------------------------------------ backward-twice
    (
        """  File "/root/work/seq2seq/train.py", line 142, in train_epoch
    loss.backward()
  File "/usr/local/lib/python3.9/dist-packages/torch/_tensor.py", line 488, in backward
    torch.autograd.backward(
  File "/usr/local/lib/python3.9/dist-packages/torch/autograd/__init__.py", line 197, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.""",
        "backward-twice",
        "error",
    ),
    (
        "my stateful LSTM language model trains on the first batch and then crashes on the "
        "second one. I feed the hidden state from the previous batch into the next one. adding "
        "retain_graph=True stops the crash but every iteration gets slower and slower",
        "backward-twice",
        "en",
    ),
    (
        "LSTM 每个 batch 都把上一次的 hidden state 传进去，第二个 batch 反向传播就报错说计算图已经被释放了，"
        "加了 retain_graph=True 之后又报 inplace 的错，怎么解决",
        "backward-twice",
        "zh",
    ),
    # ------------------------------------------------------------------ bce-with-logits
    (
        """Traceback (most recent call last):
  File "main.py", line 201, in <module>
    train(model, loader, opt)
  File "main.py", line 77, in train
    loss = criterion(out, y.float())
  File "/home/me/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/me/.venv/lib/python3.10/site-packages/torch/nn/modules/loss.py", line 618, in forward
    return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)
  File "/home/me/.venv/lib/python3.10/site-packages/torch/nn/functional.py", line 3127, in binary_cross_entropy
    return torch._C._nn.binary_cross_entropy(input, target, weight, reduction_enum)
RuntimeError: all elements of input should be between 0 and 1""",
        "bce-with-logits",
        "error",
    ),
    (
        "binary classifier with a sigmoid at the end + BCELoss. some batches print a loss of "
        "exactly 100.0 and the hard examples never get learned, like their gradient is dead. "
        "why is the loss capped at 100?",
        "bce-with-logits",
        "en",
    ),
    (
        "二分类用 sigmoid 再接 BCELoss，有些 batch 的 loss 正好等于 100，而且难分的样本一直学不动，"
        "看了一下梯度几乎是 0",
        "bce-with-logits",
        "zh",
    ),
    # ------------------------------------------------------------------ bf16-precision
    (
        "I cast the whole model and optimizer state to bfloat16 (model.to(torch.bfloat16)) and "
        "the weights basically never change, loss is flat. the exact same script in fp32 "
        "learns fine. no nan, no inf, nothing",
        "bf16-precision",
        "en",
    ),
    (
        "模型整个转成 bf16 训练，loss 基本不动，打印权重发现几乎没更新，fp32 下就正常，也没有出现 nan",
        "bf16-precision",
        "zh",
    ),
    # ------------------------------------------------------------------ bias-before-bn
    (
        "Is there any point in bias=True for a Conv2d that goes straight into BatchNorm2d? the "
        "bias gradients I log are around 1e-8 while the weight grads are ~0.1",
        "bias-before-bn",
        "en",
    ),
    (
        "卷积层后面紧跟 BN 层的时候，conv 的 bias 要不要设成 False？我看 bias 的梯度几乎是 0",
        "bias-before-bn",
        "zh",
    ),
    # ------------------------------------------------------------------ bn-batch-size-1
    (
        """ 97%|█████████▋| 243/250 [00:41<00:01,  5.89it/s]
Traceback (most recent call last):
  File "/home/lee/project/train.py", line 66, in <module>
    out = model(xb)
  File "/home/lee/.local/lib/python3.8/site-packages/torch/nn/modules/module.py", line 1102, in _call_impl
    return forward_call(*input, **kwargs)
  File "/home/lee/.local/lib/python3.8/site-packages/torch/nn/modules/batchnorm.py", line 171, in forward
    return F.batch_norm(
  File "/home/lee/.local/lib/python3.8/site-packages/torch/nn/functional.py", line 2448, in batch_norm
    _verify_batch_size(input.size())
  File "/home/lee/.local/lib/python3.8/site-packages/torch/nn/functional.py", line 2416, in _verify_batch_size
    raise ValueError("Expected more than 1 value per channel when training, got input size {}".format(size))
ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 256])""",
        "bn-batch-size-1",
        "error",
    ),
    (
        "training crashes right at the end of every epoch inside the BatchNorm1d layer. dataset "
        "has 1001 rows and batch size is 50. if I call model.eval() first the same input works",
        "bn-batch-size-1",
        "en",
    ),
    (
        "每个 epoch 训练到最后一个 batch 就在 BatchNorm 那里报错，数据集数量不是 batch size 的整数倍，最后只剩一个样本",
        "bn-batch-size-1",
        "zh",
    ),
    # ------------------------------------------------------------------ ce-class-dim
    (
        """Traceback (most recent call last):
  File "ner_train.py", line 112, in <module>
    loss = loss_fn(logits, labels)
  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1501, in _call_impl
    return forward_call(*args, **kwargs)
  File "/usr/lib/python3/dist-packages/torch/nn/modules/loss.py", line 1174, in forward
    return F.cross_entropy(input, target, weight=self.weight,
  File "/usr/lib/python3/dist-packages/torch/nn/functional.py", line 3029, in cross_entropy
    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
RuntimeError: Expected target size [16, 9], got [16, 128]""",
        "ce-class-dim",
        "error",
    ),
    (
        "token classification: my logits are [batch, seq_len, num_tags] and labels are "
        "[batch, seq_len]. CrossEntropyLoss complains about the target size and the numbers in "
        "the message look swapped",
        "ce-class-dim",
        "en",
    ),
    (
        "语义分割网络输出是 (N, H, W, C)，标签是 (N, H, W)，用 CrossEntropyLoss 算 loss 报 size mismatch，类别那一维应该放在哪？",
        "ce-class-dim",
        "zh",
    ),
    # ------------------------------------------------------------------ ce-ignore-index
    (
        """Traceback (most recent call last):
  File "train_tagger.py", line 95, in train_step
    loss = F.cross_entropy(out.view(-1, n_tags), y.view(-1))
  File "/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py", line 3494, in cross_entropy
    return torch._C._nn.cross_entropy_loss(
IndexError: Target -1 is out of bounds.""",
        "ce-ignore-index",
        "error",
    ),
    (
        "after padding my label sequences with pad_sequence the tagger starts predicting class 0 "
        "everywhere, and once in a while a batch logs loss = nan",
        "ce-ignore-index",
        "en",
    ),
    (
        "序列标注 padding 的位置标签用 0 填充，结果模型全预测成第 0 类；padding 的标签应该填多少才不会被算进 loss？",
        "ce-ignore-index",
        "zh",
    ),
    # ------------------------------------------------------------------ chained-index-copy
    (
        "x[mask][:, 1] = 0 doesn't modify x at all?? no error no warning. but x[:5][:, 1] = 0 "
        "does work. is this a pytorch bug",
        "chained-index-copy",
        "en",
    ),
    (
        "用布尔 mask 选出几行再给其中一列赋值，原来的 tensor 完全没变，也不报错，换成切片就可以，为什么",
        "chained-index-copy",
        "zh",
    ),
    # ------------------------------------------------------------------ checkpoint-use-reentrant
    (
        """/home/u/miniconda3/lib/python3.10/site-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.
  return fn(*args, **kwargs)
/home/u/miniconda3/lib/python3.10/site-packages/torch/utils/checkpoint.py:91: UserWarning: None of the inputs have requires_grad=True. Gradients will be None
  warnings.warn(""",
        "checkpoint-use-reentrant",
        "error",
    ),
    (
        "I wrapped my transformer layers in torch.utils.checkpoint to save memory. the loss still "
        "goes down a bit, but after training the encoder weights are identical to the init, only "
        "the classifier head changed",
        "checkpoint-use-reentrant",
        "en",
    ),
    (
        "用了梯度检查点 checkpoint 省显存之后，被包起来的那些层参数完全没更新，只有最后的分类头在学",
        "checkpoint-use-reentrant",
        "zh",
    ),
    # ------------------------------------------------------------------ clip-grad-placement
    (
        "gradient clipping seems to do nothing, the loss still blows up to nan. I put the "
        "clip_grad_norm_ call right after optimizer.zero_grad() at the top of the loop and it "
        "always returns 0",
        "clip-grad-placement",
        "en",
    ),
    (
        "用了 GradScaler 混合精度之后加上梯度裁剪，模型几乎不训练了；clip_grad_norm_ 返回的范数特别大，是不是要先 unscale",
        "clip-grad-placement",
        "zh",
    ),
    # ------------------------------------------------------------------ collate-variable-length
    (
        """Traceback (most recent call last):
  File "/content/drive/MyDrive/asr/train.py", line 48, in <module>
    for batch in train_loader:
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 630, in __next__
    data = self._next_data()
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1345, in _next_data
    return self._process_data(data)
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1371, in _process_data
    data.reraise()
  File "/usr/local/lib/python3.10/dist-packages/torch/_utils.py", line 694, in reraise
    raise exception
RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop
    data = fetcher.fetch(index)
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/fetch.py", line 54, in fetch
    return self.collate_fn(data)
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/collate.py", line 265, in default_collate
    return collate(batch, collate_fn_map=default_collate_fn_map)
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/collate.py", line 142, in collate
    return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]  # Backwards compatibility.
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/collate.py", line 119, in collate
    return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/collate.py", line 162, in collate_tensor_fn
    return torch.stack(batch, 0, out=out)
RuntimeError: stack expects each tensor to be equal size, but got [16000] at entry 0 and [23520] at entry 1""",
        "collate-variable-length",
        "error",
    ),
    (
        "my audio clips all have different lengths and a DataLoader with batch_size=8 fails on "
        "the first batch, batch_size=1 is fine. how am I supposed to pad them?",
        "collate-variable-length",
        "en",
    ),
    (
        "dataloader 的 batch_size 大于 1 就报错，每个样本的句子长度不一样，是不是要自己写 collate_fn",
        "collate-variable-length",
        "zh",
    ),
    # ------------------------------------------------------------------ conv-channels-last-input
    (
        """Traceback (most recent call last):
  File "infer.py", line 23, in <module>
    pred = net(img_t)
  File "/home/ubuntu/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/ubuntu/.venv/lib/python3.10/site-packages/torch/nn/modules/conv.py", line 458, in forward
    return self._conv_forward(input, self.weight, self.bias)
  File "/home/ubuntu/.venv/lib/python3.10/site-packages/torch/nn/modules/conv.py", line 454, in _conv_forward
    return F.conv2d(input, weight, bias, self.stride,
RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[1, 224, 224, 3] to have 3 channels, but got 224 channels instead""",
        "conv-channels-last-input",
        "error",
    ),
    (
        "loaded an image with cv2, turned it into a tensor with torch.from_numpy and the first "
        "conv says it got 224 channels. I 'fixed' it with .view(1,3,224,224) and now the "
        "predictions are garbage",
        "conv-channels-last-input",
        "en",
    ),
    (
        "opencv 读进来的图片是 HWC 格式，送进 Conv2d 报通道数不对，用 reshape 改成 CHW 之后能跑了但是效果很差",
        "conv-channels-last-input",
        "zh",
    ),
    # ------------------------------------------------------------------ cuda-async-timing
    (
        "benchmarking my model on the GPU with time.time() around the forward gives 0.2 ms, "
        "which is impossibly fast, and in the line profiler the line with loss.item() takes "
        "seconds",
        "cuda-async-timing",
        "en",
    ),
    (
        "测 GPU 推理耗时，time.time() 前后一减只有零点几毫秒，但是 .item() 那一行特别慢，这样计时准吗",
        "cuda-async-timing",
        "zh",
    ),
    # ------------------------------------------------------------------ cuda-fork
    (
        """Traceback (most recent call last):
  File "/home/r/det/train.py", line 142, in <module>
    for imgs, targets in train_loader:
  File "/home/r/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 701, in __next__
    data = self._next_data()
  File "/home/r/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1465, in _next_data
    return self._process_data(data)
  File "/home/r/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1491, in _process_data
    data.reraise()
  File "/home/r/.venv/lib/python3.10/site-packages/torch/_utils.py", line 715, in reraise
    raise exception
RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/home/r/.venv/lib/python3.10/site-packages/torch/utils/data/_utils/worker.py", line 351, in _worker_loop
    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]
  File "/home/r/det/data/coco.py", line 88, in __getitem__
    boxes = torch.as_tensor(ann["bbox"], device="cuda")
  File "/home/r/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py", line 300, in _lazy_init
    raise RuntimeError(
RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method""",
        "cuda-fork",
        "error",
    ),
    (
        "my Dataset puts each sample on the GPU inside __getitem__ and with num_workers=4 the "
        "loader crashes on the very first batch; num_workers=0 works",
        "cuda-fork",
        "en",
    ),
    (
        "用 multiprocessing.Pool 开多进程推理，主进程里已经调用过 cuda 了，子进程一用显卡就报错，说不能在 fork 出来的子进程里重新初始化",
        "cuda-fork",
        "zh",
    ),
    # ------------------------------------------------------------------ cuda-not-available
    (
        r"""Traceback (most recent call last):
  File "C:\Users\zhang\Desktop\yolo\train.py", line 31, in <module>
    model = Net().cuda()
  File "C:\Users\zhang\anaconda3\envs\torch\lib\site-packages\torch\nn\modules\module.py", line 911, in cuda
    return self._apply(lambda t: t.cuda(device))
  File "C:\Users\zhang\anaconda3\envs\torch\lib\site-packages\torch\nn\modules\module.py", line 802, in _apply
    module._apply(fn)
  File "C:\Users\zhang\anaconda3\envs\torch\lib\site-packages\torch\cuda\__init__.py", line 310, in _lazy_init
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled""",
        "cuda-not-available",
        "error",
    ),
    (
        "the script runs on our GPU server, but inside my docker container it dies at the first "
        ".cuda() call and torch.cuda.is_available() is False in there",
        "cuda-not-available",
        "en",
    ),
    (
        "pip 装的 torch，一运行 .cuda() 就报错说 torch 没有编译 CUDA，torch.version.cuda 打印出来是 None，怎么办",
        "cuda-not-available",
        "zh",
    ),
    # ------------------------------------------------------------------ cudnn-benchmark-determinism
    (
        """Traceback (most recent call last):
  File "/data/exp/seg/train.py", line 131, in <module>
    loss.backward()
  File "/opt/conda/lib/python3.11/site-packages/torch/_tensor.py", line 626, in backward
    torch.autograd.backward(
  File "/opt/conda/lib/python3.11/site-packages/torch/autograd/__init__.py", line 347, in backward
    _engine_run_backward(
  File "/opt/conda/lib/python3.11/site-packages/torch/autograd/graph.py", line 823, in _engine_run_backward
    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: adaptive_avg_pool2d_backward_cuda does not have a deterministic implementation, but you set 'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for this operation, or you can use the 'warn_only=True' option, if that's acceptable for your application. You can also file an issue at https://github.com/pytorch/pytorch/issues to help us prioritize adding deterministic support for this operation.""",
        "cudnn-benchmark-determinism",
        "error",
    ),
    (
        "I seed everything with torch.manual_seed(42) but two training runs on the same GPU drift "
        "apart after a few hundred steps; on the CPU they match exactly. cudnn.benchmark is on",
        "cudnn-benchmark-determinism",
        "en",
    ),
    (
        "固定了随机种子，同一张卡上跑两次训练结果还是不一样，CPU 上就完全一致，是不是 cudnn 的问题",
        "cudnn-benchmark-determinism",
        "zh",
    ),
    # ------------------------------------------------------------------ dataloader-len
    (
        """Traceback (most recent call last):
  File "dann_train.py", line 134, in <module>
    data_source = data_source_iter.next()
AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute 'next'""",
        "dataloader-len",
        "error",
    ),
    (
        "domain adaptation loop: for (xs, ys), (xt, _) in zip(src_loader, tgt_loader) — the "
        "epoch ends after len(tgt_loader) steps and part of the source data is never used",
        "dataloader-len",
        "en",
    ),
    (
        "len(dataloader) 返回的到底是什么？我的数据有 1000 条，batch_size 是 32，结果是 32，最后一个 batch 只有 8 条",
        "dataloader-len",
        "zh",
    ),
    # ------------------------------------------------------------------ dataloader-too-many-open-files
    (
        """  File "/usr/lib/python3.8/multiprocessing/resource_sharer.py", line 87, in get_connection
    c = Client(address, authkey=process.current_process().authkey)
  File "/usr/lib/python3.8/multiprocessing/reduction.py", line 164, in recvfds
    raise RuntimeError('received %d items of ancdata' %
RuntimeError: received 0 items of ancdata

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/x/eval.py", line 77, in <module>
    for i, batch in enumerate(val_loader):
  File "/home/x/venv/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 521, in __next__
    data = self._next_data()
  File "/home/x/venv/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 1186, in _next_data
    idx, data = self._get_data()
  File "/home/x/venv/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 1003, in _try_get_data
    raise RuntimeError(
RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code""",
        "dataloader-too-many-open-files",
        "error",
    ),
    (
        "I keep all the validation outputs from the dataloader in a list to compute AUC at the "
        "end, and after ~3000 batches it crashes complaining about open files. num_workers=0 "
        "works fine",
        "dataloader-too-many-open-files",
        "en",
    ),
    (
        "验证的时候把每个 batch 的输出都存进一个列表，跑一段时间报 too many open files，ulimit 调大了也只是晚一点崩",
        "dataloader-too-many-open-files",
        "zh",
    ),
    # ------------------------------------------------------------------ dataloader-worker-killed
    (
        """Epoch 3:  62%|██████▏   | 1540/2480 [12:03<07:21,  2.13it/s, loss=0.412]
Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1133, in _try_get_data
    data = self._data_queue.get(timeout=timeout)
  File "/opt/conda/lib/python3.10/multiprocessing/queues.py", line 113, in get
    if not self._poll(timeout):
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 48211) is killed by signal: Killed.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "train.py", line 210, in <module>
    main()
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1146, in _try_get_data
    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e
RuntimeError: DataLoader worker (pid(s) 48211, 48215) exited unexpectedly""",
        "dataloader-worker-killed",
        "error",
    ),
    (
        "training dies after a few epochs because the dataloader workers get killed. GPU memory "
        "is fine. my dataset keeps a big python list of paths and annotations, and system RAM "
        "keeps climbing with num_workers=8",
        "dataloader-worker-killed",
        "en",
    ),
    (
        "训练几个 epoch 之后 dataloader 的 worker 被 kill 掉了，显存还剩很多，但是内存一直在涨，num_workers 调小能多撑一会",
        "dataloader-worker-killed",
        "zh",
    ),
    # ------------------------------------------------------------------ dataparallel-module-prefix
    (
        """Traceback (most recent call last):
  File "predict.py", line 19, in <module>
    net.load_state_dict(torch.load("checkpoints/best.pth", map_location="cpu"))
  File "/home/a/.conda/envs/seg/lib/python3.9/site-packages/torch/nn/modules/module.py", line 2152, in load_state_dict
    raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(
RuntimeError: Error(s) in loading state_dict for UNet:
\tMissing key(s) in state_dict: "inc.double_conv.0.weight", "inc.double_conv.1.weight", "inc.double_conv.1.bias", "inc.double_conv.1.running_mean", "inc.double_conv.1.running_var".
\tUnexpected key(s) in state_dict: "module.inc.double_conv.0.weight", "module.inc.double_conv.1.weight", "module.inc.double_conv.1.bias", "module.inc.double_conv.1.running_mean", "module.inc.double_conv.1.running_var".""",
        "dataparallel-module-prefix",
        "error",
    ),
    (
        "after torch.compile my saved checkpoint has keys starting with _orig_mod. and the plain "
        "uncompiled model refuses to load it. strict=False loads but the model is clearly untrained",
        "dataparallel-module-prefix",
        "en",
    ),
    (
        "多卡训练保存的模型，单卡加载的时候 key 对不上，每个 key 前面都多了一个 module.，怎么去掉",
        "dataparallel-module-prefix",
        "zh",
    ),
    # ------------------------------------------------------------------ ddp-unused-parameters
    (
        """[rank1]: Traceback (most recent call last):
[rank1]:   File "/workspace/train_ddp.py", line 188, in <module>
[rank1]:     out = model(images)
[rank1]:   File "/usr/local/lib/python3.10/dist-packages/torch/nn/parallel/distributed.py", line 1636, in forward
[rank1]:     inputs, kwargs = self._pre_forward(*inputs, **kwargs)
[rank1]:   File "/usr/local/lib/python3.10/dist-packages/torch/nn/parallel/distributed.py", line 1527, in _pre_forward
[rank1]:     if torch.is_grad_enabled() and self.reducer._rebuild_buckets():
[rank1]: RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by
[rank1]: making sure all `forward` function outputs participate in calculating loss.
[rank1]: If you already have done the above, then the distributed data parallel module wasn't able to locate the output tensors in the return value of your module's `forward` function. Please include the loss function and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable).
[rank1]: Parameter indices which did not receive grad for rank 1: 212 213
[rank1]:  In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out information about which particular parameters did not receive gradient on this rank as part of this error""",
        "ddp-unused-parameters",
        "error",
    ),
    (
        "DDP training crashes at the start of the second iteration. single GPU is fine. my model "
        "has an auxiliary classifier that I only use in some epochs",
        "ddp-unused-parameters",
        "en",
    ),
    (
        "多卡 DDP 训练到第二个 iteration 报错，说有参数没有参与 loss 的计算，单卡是好的，模型里有个分支有时候不走",
        "ddp-unused-parameters",
        "zh",
    ),
    # ------------------------------------------------------------------ detach
    (
        "I tweak some intermediate values via tensor.data inside my custom layer, and the "
        "gradients autograd gives me don't match finite differences at all. no error anywhere",
        "detach",
        "en",
    ),
    (
        "GAN 训练判别器的时候要不要对 G 的输出做 detach？不 detach 的话生成器的梯度会不会被判别器的 loss 污染",
        "detach",
        "zh",
    ),
    # ------------------------------------------------------------------ device-mismatch
    (
        """Traceback (most recent call last):
  File "/home/dev/proj/train.py", line 61, in <module>
    logits = model(input_ids)
  File "/home/dev/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1511, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/dev/proj/models/lm.py", line 40, in forward
    x = self.tok_emb(idx)
  File "/home/dev/.venv/lib/python3.10/site-packages/torch/nn/modules/sparse.py", line 163, in forward
    return F.embedding(
  File "/home/dev/.venv/lib/python3.10/site-packages/torch/nn/functional.py", line 2237, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
RuntimeError: Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)""",
        "device-mismatch",
        "error",
    ),
    (
        "the model is on cuda and I moved the inputs to cuda too, but the causal mask I build "
        "inside forward with torch.arange is on cpu and it crashes. everything ran fine on my "
        "macbook without a GPU",
        "device-mismatch",
        "en",
    ),
    (
        "模型已经 .to('cuda') 了，forward 里面新建的 tensor 还在 cpu 上，报两个 device 不一致",
        "device-mismatch",
        "zh",
    ),
    # ------------------------------------------------------------------ device-side-assert
    (
        """../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [87,0,0], thread: [96,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.
../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [87,0,0], thread: [97,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.
Traceback (most recent call last):
  File "train.py", line 140, in <module>
    running += loss.item()
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.""",
        "device-side-assert",
        "error",
    ),
    (
        "my jupyter notebook hit a CUDA assert and now every cell that touches the GPU fails, "
        "even torch.zeros(1).cuda(). my labels go from 1 to 10 for 10 classes if that matters",
        "device-side-assert",
        "en",
    ),
    (
        "训练的时候报 cuda 断言错误，定位到 loss.item() 那一行，但那行看起来没问题；标签是从 1 开始编号的，有关系吗",
        "device-side-assert",
        "zh",
    ),
    # ------------------------------------------------------------------ distributed-sampler-set-epoch
    (
        "with DistributedSampler(shuffle=True) each GPU gets its batches in exactly the same "
        "order every epoch. I logged the first few indices per epoch and they repeat",
        "distributed-sampler-set-epoch",
        "en",
    ),
    (
        "多卡训练用了 DistributedSampler，每个 epoch 的数据顺序都一模一样，shuffle=True 没生效吗",
        "distributed-sampler-set-epoch",
        "zh",
    ),
    # ------------------------------------------------------------------ expand-inplace
    (
        """Traceback (most recent call last):
  File "beam.py", line 61, in step
    scores.add_(log_probs)
RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.""",
        "expand-inplace",
        "error",
    ),
    (
        "I made a (batch, hidden) initial state from one learned vector with .expand(), then in "
        "beam search I update state[i] for a single beam and every beam gets the update — and "
        "the learned vector itself changed too",
        "expand-inplace",
        "en",
    ),
    (
        "用 expand 扩展出来的张量，改了其中一行，其他行全都跟着变了，连原来的向量也被改了",
        "expand-inplace",
        "zh",
    ),
    # ------------------------------------------------------------------ float-sum-order
    (
        "my unit test compares the model output on CPU and CUDA with == and fails, differences "
        "around 1e-6. also summing a tensor in chunks gives a different total than .sum(). is "
        "pytorch nondeterministic?",
        "float-sum-order",
        "en",
    ),
    (
        "同样的数据，换一个 batch size 验证集 loss 在小数点后第六位就不一样了，是浮点精度的问题吗",
        "float-sum-order",
        "zh",
    ),
    # ------------------------------------------------------------------ focal-loss
    (
        "implemented focal loss with softmax and then log(p), after a few epochs the loss "
        "becomes nan. I already do p.clamp(1e-6, 1.0) but it's still nan",
        "focal-loss",
        "en",
    ),
    (
        "自己写的 focal loss 训练一阵子之后就变成 nan 了，已经加了 clamp 还是不行",
        "focal-loss",
        "zh",
    ),
    # ------------------------------------------------------------------ fp16-overflow-gradscaler
    (
        "with torch.cuda.amp.autocast and no GradScaler my model doesn't learn anything, lots of "
        "the gradients are exactly 0. in fp32 it converges",
        "fp16-overflow-gradscaler",
        "en",
    ),
    (
        "用 autocast 半精度训练 loss 变成 inf 或者 nan，不用混合精度就正常，GradScaler 是必须的吗",
        "fp16-overflow-gradscaler",
        "zh",
    ),
    # ------------------------------------------------------------------ from-numpy-shares-memory
    (
        """Traceback (most recent call last):
  File "/home/c/det/dataset.py", line 42, in __getitem__
    img = torch.from_numpy(img[:, :, ::-1]).permute(2, 0, 1)
ValueError: At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().)""",
        "from-numpy-shares-memory",
        "error",
    ),
    (
        "I reuse a single numpy buffer when reading video frames and append torch.from_numpy(buf) "
        "to a list. at the end every frame in the list is identical (the last frame)",
        "from-numpy-shares-memory",
        "en",
    ),
    (
        "对 from_numpy 得到的 tensor 做了减均值的原地操作，结果原来的 numpy 数组也被改了",
        "from-numpy-shares-memory",
        "zh",
    ),
    # ------------------------------------------------------------------ grad-accumulation-scaling
    (
        "switched from batch 32 to batch 8 with 4 accumulation steps, same lr, and now training "
        "diverges. am I supposed to divide the loss by something?",
        "grad-accumulation-scaling",
        "en",
    ),
    (
        "梯度累积的时候 loss 需要除以累积步数吗？不除的话和直接用大 batch 的结果差很多",
        "grad-accumulation-scaling",
        "zh",
    ),
    # ------------------------------------------------------------------ gradient-reversal
    (
        """/home/w/anaconda3/envs/da/lib/python3.8/site-packages/torch/nn/modules/module.py:1025: UserWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and will be removed in future versions. This hook will be missing some grad_input. Please use register_full_backward_hook to get the documented behavior.
  warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes "
[epoch 1] cls_loss 0.913 dom_loss 0.101 dom_acc 0.998""",
        "gradient-reversal",
        "error",
    ),
    (
        "DANN: to reverse the gradient I register a hook on the feature extractor every iteration "
        "with the current lambda. the domain classifier stays near 100% accuracy, the features "
        "never become domain invariant",
        "gradient-reversal",
        "en",
    ),
    (
        "梯度反转层 GRL 应该怎么实现？我每个 step 都 register_hook 一次，感觉反转根本没起作用",
        "gradient-reversal",
        "zh",
    ),
    # ------------------------------------------------------------------ index-duplicate-accumulate
    (
        "building a confusion matrix with cm[target, pred] += 1 gives a total that is smaller "
        "than the number of samples",
        "index-duplicate-accumulate",
        "en",
    ),
    (
        "用索引累加 hist[idx] += 1 统计每个类别的数量，重复的下标只加了一次，结果比 bincount 少",
        "index-duplicate-accumulate",
        "zh",
    ),
    # ------------------------------------------------------------------ inference-mode-tensor
    (
        """Traceback (most recent call last):
  File "/app/rl/ppo_trainer.py", line 311, in train_step
    logits = self.policy(rollout_ids).logits
  File "/usr/local/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/usr/local/lib/python3.11/site-packages/torch/nn/modules/sparse.py", line 190, in forward
    return F.embedding(
  File "/usr/local/lib/python3.11/site-packages/torch/nn/functional.py", line 2551, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.""",
        "inference-mode-tensor",
        "error",
    ),
    (
        "precomputed features from a frozen ResNet under torch.inference_mode() to speed things "
        "up, then training a linear probe on them fails in the forward pass. with no_grad() it "
        "works. what's the difference?",
        "inference-mode-tensor",
        "en",
    ),
    (
        "用 inference_mode 提取的特征拿去训练一个小网络就报错，换成 no_grad 就好了，为什么",
        "inference-mode-tensor",
        "zh",
    ),
    # ------------------------------------------------------------------ inplace-autograd
    (
        """/home/t/.venv/lib/python3.10/site-packages/torch/autograd/graph.py:744: UserWarning: Error detected in SigmoidBackward0. Traceback of forward call that caused the error:
  File "train.py", line 88, in <module>
    out = model(x)
  File "model.py", line 33, in forward
    h = torch.sigmoid(self.fc1(x))
 (Triggered internally at ../torch/csrc/autograd/python_anomaly_mode.cpp:111.)
  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
Traceback (most recent call last):
  File "train.py", line 91, in <module>
    loss.backward()
  File "/home/t/.venv/lib/python3.10/site-packages/torch/_tensor.py", line 522, in backward
    torch.autograd.backward(
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [64, 256]], which is output 0 of SigmoidBackward0, is at version 1; expected version 0 instead. Hint: the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!""",
        "inplace-autograd",
        "error",
    ),
    (
        "I have nn.ReLU(inplace=True) right after a sigmoid and backward fails saying a variable "
        "was modified in place. when I drop inplace=True it trains",
        "inplace-autograd",
        "en",
    ),
    (
        "手动更新参数 w -= lr * w.grad 报错，说叶子节点不能做原地操作，那应该怎么手写梯度下降",
        "inplace-autograd",
        "zh",
    ),
    # ------------------------------------------------------------------ int-division
    (
        """Traceback (most recent call last):
  File "/home/b/asr/decode.py", line 58, in <module>
    center = feats[:, lengths / 2]
IndexError: tensors used as indices must be long, int, byte or bool tensors""",
        "int-division",
        "error",
    ),
    (
        "code from an old repo does mid = seq_len / 2 and then uses mid to index; it used to work "
        "on torch 1.4, now it fails because the result is a float",
        "int-division",
        "en",
    ),
    (
        "计算准确率 (pred == label).mean() 报错，说 Bool 类型不能求 mean，要先转成 float 吗",
        "int-division",
        "zh",
    ),
    # ------------------------------------------------------------------ iterable-dataset-duplicates
    (
        """/usr/lib/python3.10/site-packages/torch/utils/data/dataloader.py:645: UserWarning: Length of IterableDataset <data.stream.JsonlStream object at 0x7f3a2c1d9e50> was reported to be 50000(when accessing len(dataloader)), but 50001 samples have been fetched. For multiprocessing data-loading, this could be caused by not properly configuring the IterableDataset replica at each worker. Please see https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.
  warnings.warn(warn_msg)""",
        "iterable-dataset-duplicates",
        "error",
    ),
    (
        "my streaming dataset reads lines from one big jsonl file; with num_workers=4 each epoch "
        "has 4x as many steps and I see the same examples repeated",
        "iterable-dataset-duplicates",
        "en",
    ),
    (
        "IterableDataset 开了多个 worker 之后数据重复了，每条样本都出现了 num_workers 次",
        "iterable-dataset-duplicates",
        "zh",
    ),
    # ------------------------------------------------------------------ linear-shape-mismatch
    (
        """Traceback (most recent call last):
  File "cnn.py", line 71, in <module>
    outputs = net(inputs)
  File "/Users/amy/miniforge3/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1532, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "cnn.py", line 29, in forward
    x = self.fc1(x)
  File "/Users/amy/miniforge3/lib/python3.11/site-packages/torch/nn/modules/linear.py", line 116, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x2704 and 400x120)""",
        "linear-shape-mismatch",
        "error",
    ),
    (
        "changed the input images from 32x32 to 64x64 and now the first fully connected layer "
        "after the convs throws a shape error. how do I figure out what in_features should be?",
        "linear-shape-mismatch",
        "en",
    ),
    (
        "全连接层的输入维度不知道怎么算，卷积之后 flatten 再接 Linear 报矩阵形状不能相乘",
        "linear-shape-mismatch",
        "zh",
    ),
    # ------------------------------------------------------------------ loss-history-leak
    (
        "GPU memory keeps going up during validation until OOM. I'm doing val_loss += "
        "criterion(out, y) in the loop and printing val_loss shows grad_fn=<AddBackward0>",
        "loss-history-leak",
        "en",
    ),
    (
        "训练时显存一直在涨，跑几个 epoch 就 OOM 了，我把每个 step 的 loss 累加起来打日志",
        "loss-history-leak",
        "zh",
    ),
    # ------------------------------------------------------------------ loss-target-dtype
    (
        r"""Traceback (most recent call last):
  File "train.py", line 58, in <module>
    loss = criterion(outputs, labels)
  File "C:\Python38\lib\site-packages\torch\nn\modules\module.py", line 727, in _call_impl
    result = self.forward(*input, **kwargs)
  File "C:\Python38\lib\site-packages\torch\nn\modules\loss.py", line 961, in forward
    return F.cross_entropy(input, target, weight=self.weight,
  File "C:\Python38\lib\site-packages\torch\nn\functional.py", line 2468, in cross_entropy
    return nll_loss(log_softmax(input, 1), target, weight, None, ignore_index, None, reduction)
  File "C:\Python38\lib\site-packages\torch\nn\functional.py", line 2264, in nll_loss
    ret = torch._C._nn.nll_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index)
RuntimeError: expected scalar type Long but found Int""",
        "loss-target-dtype",
        "error",
    ),
    (
        "labels come from a pandas csv column; CrossEntropyLoss refuses them because they're "
        "floats, while BCEWithLogitsLoss refuses my int64 labels. which dtype does each loss want?",
        "loss-target-dtype",
        "en",
    ),
    (
        "交叉熵损失报错说 target 的类型不对，我的标签是 float 的，转成 long 就可以了吗",
        "loss-target-dtype",
        "zh",
    ),
    # ------------------------------------------------------------------ lr-scheduler-order
    (
        """Traceback (most recent call last):
  File "train.py", line 152, in <module>
    scheduler.step()
  File "/opt/conda/lib/python3.10/site-packages/torch/optim/lr_scheduler.py", line 68, in wrapper
    return wrapped(*args, **kwargs)
  File "/opt/conda/lib/python3.10/site-packages/torch/optim/lr_scheduler.py", line 143, in step
    values = self.get_lr()
  File "/opt/conda/lib/python3.10/site-packages/torch/optim/lr_scheduler.py", line 1723, in get_lr
    raise ValueError(
ValueError: Tried to step 3001 times. The specified number of total steps is 3000""",
        "lr-scheduler-order",
        "error",
    ),
    (
        "StepLR(step_size=30) but the learning rate drops at epoch 29 instead of 30. I call "
        "scheduler.step() at the start of every epoch like the old tutorial did",
        "lr-scheduler-order",
        "en",
    ),
    (
        "学习率调度器每个 batch 都调用了一次 step，结果学习率几个 epoch 就降到几乎为 0 了",
        "lr-scheduler-order",
        "zh",
    ),
    # ------------------------------------------------------------------ lstm-batch-first
    (
        """Traceback (most recent call last):
  File "rnn_clf.py", line 47, in forward
    out, (h, c) = self.lstm(x, (h0, c0))
  File "/home/p/.venv/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 874, in forward
    self.check_forward_args(input, hx, batch_sizes)
  File "/home/p/.venv/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 790, in check_forward_args
    self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
  File "/home/p/.venv/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 259, in check_hidden_size
    raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))
RuntimeError: Expected hidden[0] size (2, 50, 128), got [2, 32, 128]""",
        "lstm-batch-first",
        "error",
    ),
    (
        "my LSTM classifier gives different predictions for the same sample depending on what "
        "else is in the batch. input is (batch, seq, features) and I take out[:, -1, :]",
        "lstm-batch-first",
        "en",
    ),
    (
        "LSTM 的输入是 (batch, seq_len, feature) 格式，没有设置 batch_first，模型能跑但效果很差",
        "lstm-batch-first",
        "zh",
    ),
    # ------------------------------------------------------------------ map-location
    (
        """Traceback (most recent call last):
  File "app.py", line 12, in <module>
    model.load_state_dict(torch.load('model_best.pth'))
  File "/usr/local/lib/python3.8/site-packages/torch/serialization.py", line 607, in load
    return _load(opened_zipfile, map_location, pickle_module, **pickle_load_args)
  File "/usr/local/lib/python3.8/site-packages/torch/serialization.py", line 882, in _load
    result = unpickler.load()
  File "/usr/local/lib/python3.8/site-packages/torch/serialization.py", line 857, in persistent_load
    load_tensor(data_type, size, key, _maybe_decode_ascii(location))
  File "/usr/local/lib/python3.8/site-packages/torch/serialization.py", line 175, in default_restore_location
    result = fn(storage, location)
  File "/usr/local/lib/python3.8/site-packages/torch/serialization.py", line 135, in validate_cuda_device
    raise RuntimeError('Attempting to deserialize object on a CUDA '
RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.""",
        "map-location",
        "error",
    ),
    (
        "8-GPU job: every rank calls torch.load(ckpt) when resuming, and GPU 0 runs out of "
        "memory while the other GPUs are fine",
        "map-location",
        "en",
    ),
    (
        "在 GPU 上训练保存的权重，放到没有显卡的服务器上部署，torch.load 直接报错",
        "map-location",
        "zh",
    ),
    # ------------------------------------------------------------------ mse-broadcast
    (
        """/home/s/miniconda3/lib/python3.9/site-packages/torch/nn/modules/loss.py:536: UserWarning: Using a target size (torch.Size([64])) that is different to the input size (torch.Size([64, 1])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.
  return F.mse_loss(input, target, reduction=self.reduction)
epoch 1 train_loss 0.8731 val_loss 0.8802""",
        "mse-broadcast",
        "error",
    ),
    (
        "house price regression: the net outputs nearly the same number for every sample (about "
        "the mean price) and the MSE plateaus. output shape is (batch, 1), targets are (batch,)",
        "mse-broadcast",
        "en",
    ),
    (
        "回归任务 loss 降不下去，预测值都接近标签的平均值，网络输出是 [N,1]，标签是 [N]",
        "mse-broadcast",
        "zh",
    ),
    # ------------------------------------------------------------------ narrow
    (
        """>>> x = torch.narrow(1, 0, 64)
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
TypeError: narrow() received an invalid combination of arguments - got (int, int, int), but expected one of:
 * (Tensor input, int dim, Tensor start, int length)
 * (Tensor input, int dim, int start, int length)""",
        "narrow",
        "error",
    ),
    (
        "I used t.narrow(1, 0, 3) to grab a few columns and then zeroed them for masking, and "
        "the original tensor got zeros as well",
        "narrow",
        "en",
    ),
    (
        "narrow 取出来的子张量修改之后，原来的张量也跟着变了，narrow 返回的是拷贝还是视图",
        "narrow",
        "zh",
    ),
    # ------------------------------------------------------------------ no-grad-fn
    (
        """Traceback (most recent call last):
  File "train.py", line 103, in <module>
    loss.backward()
  File "/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", line 492, in backward
    torch.autograd.backward(
  File "/usr/local/lib/python3.10/dist-packages/torch/autograd/__init__.py", line 251, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn""",
        "no-grad-fn",
        "error",
    ),
    (
        "I compute the dice score with numpy and wrap it back with torch.tensor to use as the "
        "loss. backward complained, so I set loss.requires_grad=True; now it runs but the loss "
        "never decreases",
        "no-grad-fn",
        "en",
    ),
    (
        "loss.backward() 报错说没有 grad_fn，网上说加 requires_grad=True，加了之后不报错了但模型完全不收敛",
        "no-grad-fn",
        "zh",
    ),
    # ------------------------------------------------------------------ nonleaf-grad
    (
        """/home/j/opt.py:22: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more informations. (Triggered internally at  /opt/conda/conda-bld/pytorch_1646755903507/work/build/aten/src/ATen/core/TensorBody.h:412.)
  print(w.grad)
None""",
        "nonleaf-grad",
        "error",
    ),
    (
        "w = torch.zeros(10, requires_grad=True).cuda() and after loss.backward() w.grad is None. "
        "the same thing on CPU worked",
        "nonleaf-grad",
        "en",
    ),
    (
        "自己定义的张量设置了 requires_grad=True 然后 .to(device)，优化器报 can't optimize a non-leaf Tensor",
        "nonleaf-grad",
        "zh",
    ),
    # ------------------------------------------------------------------ numpy-aliases-removed
    (
        """Traceback (most recent call last):
  File "tools/test.py", line 9, in <module>
    from lib.utils.bbox import bbox_overlaps
  File "/home/q/old-det/lib/utils/bbox.py", line 31, in <module>
    keep = np.zeros((N,), dtype=np.int)
  File "/home/q/.venv/lib/python3.10/site-packages/numpy/__init__.py", line 305, in __getattr__
    raise AttributeError(__former_attrs__[attr])
AttributeError: module 'numpy' has no attribute 'int'.
`np.int` was a deprecated alias for the builtin `int`. To avoid this error in existing code, use `int` by itself. Doing this will not modify any behavior and is safe. When replacing `np.int`, you may wish to use e.g. `np.int64` or `np.int32` to specify the precision. If you wish to review your current use, check the release note link for additional information.
The aliases was originally deprecated in NumPy 1.20; for more details and guidance see the original release note at:
    https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations""",
        "numpy-aliases-removed",
        "error",
    ),
    (
        "an old github repo from 2020 breaks on `.astype(np.int)` right after I pip installed "
        "the latest numpy",
        "numpy-aliases-removed",
        "en",
    ),
    (
        "跑别人的老代码报 numpy 没有 float 这个属性，是 numpy 版本太高了吗，需要降级吗",
        "numpy-aliases-removed",
        "zh",
    ),
    # ------------------------------------------------------------------ numpy-float64
    (
        """Traceback (most recent call last):
  File "train_cnn.py", line 88, in <module>
    out = model(batch_x)
  File "/home/k/.venv/lib/python3.7/site-packages/torch/nn/modules/module.py", line 550, in __call__
    result = self.forward(*input, **kwargs)
  File "/home/k/.venv/lib/python3.7/site-packages/torch/nn/modules/conv.py", line 349, in _conv_forward
    return F.conv2d(input, weight, self.bias, self.stride,
RuntimeError: Input type (torch.DoubleTensor) and weight type (torch.FloatTensor) should be the same""",
        "numpy-float64",
        "error",
    ),
    (
        "model trains fine on torch.randn dummy data, but when I feed my real scikit-learn "
        "preprocessed arrays it crashes with a dtype error in the first layer",
        "numpy-float64",
        "en",
    ),
    (
        "numpy 数组转成 tensor 之后输入网络报类型错误，double 和 float 不匹配",
        "numpy-float64",
        "zh",
    ),
    # ------------------------------------------------------------------ numpy-requires-grad
    (
        """Traceback (most recent call last):
  File "plot_preds.py", line 30, in <module>
    plt.plot(xs, preds)
  File "/usr/lib/python3/dist-packages/matplotlib/pyplot.py", line 2812, in plot
    return gca().plot(
  File "/usr/lib/python3/dist-packages/matplotlib/cbook/__init__.py", line 1335, in _to_unmasked_float_array
    return np.asarray(x, float)
  File "/usr/lib/python3/dist-packages/torch/_tensor.py", line 970, in __array__
    return self.numpy().astype(dtype, copy=False)
RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.""",
        "numpy-requires-grad",
        "error",
    ),
    (
        "trying to compute sklearn's f1_score on my model outputs. I did outputs.detach().numpy() "
        "and now it says it can't convert a cuda:0 tensor",
        "numpy-requires-grad",
        "en",
    ),
    (
        "模型输出转成 numpy 画图的时候报错，说需要梯度的张量不能调用 numpy()",
        "numpy-requires-grad",
        "zh",
    ),
    # ------------------------------------------------------------------ numpy-semantics
    (
        """/home/v/prep.py:17: UserWarning: std(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input numel divided by output numel). (Triggered internally at ../aten/src/ATen/native/ReduceOps.cpp:1807.)
  s = feats.std(dim=0)
tensor([nan, nan, nan, nan])""",
        "numpy-semantics",
        "error",
    ),
    (
        "labels.repeat(3) in torch gives [0,1,2,0,1,2,...] but np.repeat gives [0,0,0,1,1,1,...]; "
        "after porting my augmentation code the samples and labels are misaligned",
        "numpy-semantics",
        "en",
    ),
    (
        "torch.std 和 np.std 算出来的结果不一样，用 torch 标准化后的特征和 sklearn 的 StandardScaler 对不上",
        "numpy-semantics",
        "zh",
    ),
    # ------------------------------------------------------------------ parameter-vs-buffer
    (
        """Traceback (most recent call last):
  File "run.py", line 25, in <module>
    y = model(x.cuda())
  File "/home/m/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1511, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/m/proj/net.py", line 19, in forward
    x = (x - self.mean) / self.std
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!""",
        "parameter-vs-buffer",
        "error",
    ),
    (
        "I keep my hidden layers in a python list, self.layers = [nn.Linear(...) for _ in "
        "range(4)], and model.parameters() only has the output layer; the hidden layers never train",
        "parameter-vs-buffer",
        "en",
    ),
    (
        "模型里用 self.mean = torch.tensor(...) 存了归一化的均值，保存 state_dict 再加载之后这个值没了，model.cuda() 也不会移动它",
        "parameter-vs-buffer",
        "zh",
    ),
    # ------------------------------------------------------------------ params-generator-exhausted
    (
        """Total params: 11689512
Traceback (most recent call last):
  File "train.py", line 64, in <module>
    optimizer = torch.optim.Adam(params, lr=3e-4)
  File "/opt/conda/lib/python3.10/site-packages/torch/optim/adam.py", line 45, in __init__
    super().__init__(params, defaults)
  File "/opt/conda/lib/python3.10/site-packages/torch/optim/optimizer.py", line 266, in __init__
    raise ValueError("optimizer got an empty parameter list")
ValueError: optimizer got an empty parameter list""",
        "params-generator-exhausted",
        "error",
    ),
    (
        "I saved params = model.parameters() in a variable, gave it to the optimizer and later "
        "to clip_grad_norm_, and clipping always returns 0.0",
        "params-generator-exhausted",
        "en",
    ),
    (
        "先用 model.parameters() 统计了参数量，再把同一个变量传给优化器，结果报参数列表为空",
        "params-generator-exhausted",
        "zh",
    ),
    # ------------------------------------------------------------------ require-grad-typo
    (
        """Traceback (most recent call last):
  File "toy.py", line 4, in <module>
    w = torch.ones(3, 3, require_grad=True)
TypeError: ones() got an unexpected keyword argument 'require_grad'""",
        "require-grad-typo",
        "error",
    ),
    (
        "fine-tuning BERT with the encoder frozen, but the trainable param count I print is still "
        "110M and it's as slow as full training. I wrote `for p in model.bert.parameters(): "
        "p.require_grad = False`",
        "require-grad-typo",
        "en",
    ),
    (
        "冻结了 backbone 的参数，但是训练完发现 backbone 的权重还是变了，可训练参数的数量也没变",
        "require-grad-typo",
        "zh",
    ),
    # ------------------------------------------------------------------ save-view-storage
    (
        "extracting per-image embeddings and doing torch.save(emb[i]) for each image; every .pt "
        "file is ~200MB even though one embedding is 2048 floats",
        "save-view-storage",
        "en",
    ),
    (
        "把一个 batch 的特征逐条 torch.save 保存，每个文件都和整个 batch 一样大，磁盘很快就满了",
        "save-view-storage",
        "zh",
    ),
    # ------------------------------------------------------------------ scatter-one-hot
    (
        """Traceback (most recent call last):
  File "/home/f/seg/losses.py", line 27, in dice_loss
    one_hot = torch.zeros(B, C, device=pred.device).scatter_(1, target, 1)
RuntimeError: Index tensor must have the same number of dimensions as self tensor""",
        "scatter-one-hot",
        "error",
    ),
    (
        "F.one_hot(labels, 10) fails saying it only works on LongTensor; my labels came out of "
        "numpy as int32",
        "scatter-one-hot",
        "en",
    ),
    (
        "用 scatter_ 生成 one-hot 编码报 index 维度不一致，标签的 shape 是 [N]",
        "scatter-one-hot",
        "zh",
    ),
    # ------------------------------------------------------------------ softmax-implicit-dim
    (
        """/home/d/code/attn.py:41: UserWarning: Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X as an argument.
  weights = F.softmax(energy)""",
        "softmax-implicit-dim",
        "error",
    ),
    (
        "evaluating with batch size 1 vs 64 gives different predictions, and my attention weights "
        "don't sum to 1 over the sequence. I use nn.Softmax() with no arguments",
        "softmax-implicit-dim",
        "en",
    ),
    (
        "注意力权重 softmax 之后沿着序列方向加起来不等于 1，反而是 batch 那一维加起来等于 1",
        "softmax-implicit-dim",
        "zh",
    ),
    # ------------------------------------------------------------------ softmax-into-cross-entropy
    (
        "my classifier ends in nn.Softmax(dim=1) and I train with nn.CrossEntropyLoss. the loss "
        "plateaus at a weird value and never gets near zero, even though accuracy is decent",
        "softmax-into-cross-entropy",
        "en",
    ),
    (
        "网络最后加了 softmax 再用 CrossEntropyLoss，loss 一直降不下去，卡在 1 点几",
        "softmax-into-cross-entropy",
        "zh",
    ),
    # ------------------------------------------------------------------ spawn-pickle-lambda
    (
        """Traceback (most recent call last):
  File "/Users/nina/dev/train.py", line 88, in <module>
    for xb, yb in loader:
  File "/Users/nina/dev/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 434, in __iter__
    self._iterator = self._get_iterator()
  File "/Users/nina/dev/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 387, in _get_iterator
    return _MultiProcessingDataLoaderIter(self)
  File "/Users/nina/dev/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1040, in __init__
    w.start()
  File "/opt/homebrew/Cellar/python@3.11/3.11.6/Frameworks/Python.framework/Versions/3.11/lib/python3.11/multiprocessing/process.py", line 121, in start
    self._popen = self._Popen(self)
  File "/opt/homebrew/Cellar/python@3.11/3.11.6/Frameworks/Python.framework/Versions/3.11/lib/python3.11/multiprocessing/reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
AttributeError: Can't pickle local object 'build_loaders.<locals>.<lambda>'""",
        "spawn-pickle-lambda",
        "error",
    ),
    (
        "same training script works on Ubuntu, but on Windows with num_workers=4 it fails as soon "
        "as the dataloader starts, something about pickling my transform lambda",
        "spawn-pickle-lambda",
        "en",
    ),
    (
        "Windows 下 DataLoader 设置 num_workers>0 就报错，提示在当前进程完成 bootstrapping 之前启动了新进程",
        "spawn-pickle-lambda",
        "zh",
    ),
    # ------------------------------------------------------------------ squeeze-batch-of-one
    (
        """Traceback (most recent call last):
  File "predict_one.py", line 21, in <module>
    cls = logits.argmax(dim=1)
IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)""",
        "squeeze-batch-of-one",
        "error",
    ),
    (
        "the last batch of the epoch has 1 sample and BCEWithLogitsLoss throws a target size vs "
        "input size error. I call .squeeze() on the model output",
        "squeeze-batch-of-one",
        "en",
    ),
    (
        "模型输出用了 squeeze()，batch 里只有一张图的时候维度被挤没了，后面 argmax 报维度越界",
        "squeeze-batch-of-one",
        "zh",
    ),
    # ------------------------------------------------------------------ stable-log-exp
    (
        "computing log-sum-exp by hand as torch.log(torch.exp(scores).sum(-1)) gives inf for large "
        "scores and the gradient is nan",
        "stable-log-exp",
        "en",
    ),
    (
        "torch.log(1 + x) 在 x 很小的时候结果直接是 0，是精度问题吗，有没有更精确的函数",
        "stable-log-exp",
        "zh",
    ),
    # ------------------------------------------------------------------ state-dict-alias
    (
        "I do best_weights = model.state_dict() whenever val loss improves and load it at the end, "
        "but the final metrics equal the last epoch's, not the best epoch's",
        "state-dict-alias",
        "en",
    ),
    (
        "早停的时候保存最优模型参数，用的是 best = model.state_dict()，最后加载回来发现效果和最后一个 epoch 一样",
        "state-dict-alias",
        "zh",
    ),
    # ------------------------------------------------------------------ tensor-constructor
    (
        """Traceback (most recent call last):
  File "make_target.py", line 12, in <module>
    t = torch.Tensor(0.5)
TypeError: new(): data must be a sequence (got float)""",
        "tensor-constructor",
        "error",
    ),
    (
        "torch.Tensor(5) gives me a tensor of 5 weird garbage numbers like 1e-38 instead of the "
        "number 5",
        "tensor-constructor",
        "en",
    ),
    (
        "torch.Tensor(3) 和 torch.tensor(3) 有什么区别？前者出来的是一串随机的数",
        "tensor-constructor",
        "zh",
    ),
    # ------------------------------------------------------------------ tensor-truth-value
    (
        """Traceback (most recent call last):
  File "/home/g/metrics.py", line 15, in accuracy
    if outputs.argmax(1) == targets:
RuntimeError: Boolean value of Tensor with more than one value is ambiguous""",
        "tensor-truth-value",
        "error",
    ),
    (
        "code works with batch size 1 in my tests but fails with batch 16 at an if statement "
        "that compares the predictions to the labels",
        "tensor-truth-value",
        "en",
    ),
    (
        "if 判断里用了 tensor 的比较，报错说多于一个元素的张量的布尔值有歧义",
        "tensor-truth-value",
        "zh",
    ),
    # ------------------------------------------------------------------ to-is-not-inplace
    (
        """Traceback (most recent call last):
  File "bench.py", line 33, in <module>
    out = model(x)
  File "/home/z/.venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/z/.venv/lib/python3.11/site-packages/torch/nn/modules/linear.py", line 125, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: mat1 and mat2 must have the same dtype, but got Float and Half""",
        "to-is-not-inplace",
        "error",
    ),
    (
        "I call images.to(device) at the start of the loop, but images.device still prints cpu "
        "afterwards",
        "to-is-not-inplace",
        "en",
    ),
    (
        "在 __init__ 里写了 self.w = nn.Parameter(torch.randn(3)).to(device)，结果这个参数不在 model.parameters() 里，也没有被训练",
        "to-is-not-inplace",
        "zh",
    ),
    # ------------------------------------------------------------------ tf32-matmul
    (
        """Traceback (most recent call last):
  File "/workspace/finetune.py", line 57, in <module>
    trainer.fit(model, datamodule=dm)
  File "/usr/local/lib/python3.12/site-packages/lightning/pytorch/trainer/trainer.py", line 538, in fit
    call._call_and_handle_interrupt(
  File "/usr/local/lib/python3.12/site-packages/lightning/fabric/accelerators/cuda.py", line 160, in _check_cuda_matmul_precision
    if torch.get_float32_matmul_precision() == "highest":  # default
RuntimeError: PyTorch is checking the matmul precision without a specific backend name,Current status indicate that you have used mix of the legacy and new APIs to set the matmul precision. We suggest only using the new API for matmul precision. See also: https://pytorch.org/docs/main/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices""",
        "tf32-matmul",
        "error",
    ),
    (
        "my float32 conv net gives outputs on an A100 that differ from the CPU reference around "
        "1e-4, so torch.allclose fails only on the GPU. on our old V100 box they matched",
        "tf32-matmul",
        "en",
    ),
    (
        "同一个 fp32 模型在 A100 上推理和在 CPU 上的结果差了 1e-3 左右，是 GPU 算错了吗，跟 tensor core 有关系吗",
        "tf32-matmul",
        "zh",
    ),
    # ------------------------------------------------------------------ torch-load-weights-only
    (
        """Traceback (most recent call last):
  File "eval.py", line 40, in <module>
    ckpt = torch.load(args.resume, map_location="cpu")
  File "/home/y/.venv/lib/python3.12/site-packages/torch/serialization.py", line 1470, in load
    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
\tWeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray.scalar was not an allowed global by default. Please use `torch.serialization.add_safe_globals([scalar])` or the `torch.serialization.safe_globals([scalar])` context manager to allowlist this global if you trust this class/function.

Check the documentation of torch.load to learn more about types accepted by default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.""",
        "torch-load-weights-only",
        "error",
    ),
    (
        "after upgrading torch to 2.6 my old YOLO .pt checkpoint won't load anymore, it worked last "
        "week. is it safe to just set weights_only=False?",
        "torch-load-weights-only",
        "en",
    ),
    (
        "升级到 torch 2.6 以后，以前用 torch.save(model) 保存的整个模型加载不了了，要把 weights_only 设成 False 吗，有没有安全问题",
        "torch-load-weights-only",
        "zh",
    ),
    # ------------------------------------------------------------------ train-eval
    (
        "validation accuracy changes every time I evaluate the same checkpoint, and running "
        "validation seems to hurt the training that follows. validation is wrapped in "
        "torch.no_grad()",
        "train-eval",
        "en",
    ),
    (
        "测试的时候同一张图片预测两次结果不一样，已经加了 with torch.no_grad()",
        "train-eval",
        "zh",
    ),
    # ------------------------------------------------------------------ uint8-overflow
    (
        "averaging two images loaded with torchvision.io.read_image as (img1 + img2) / 2 gives "
        "weird dark patches where both images are bright",
        "uint8-overflow",
        "en",
    ),
    (
        "两张图片相减求差异，结果很多地方是 250 左右的大数，明明两张图很接近，读进来是 uint8",
        "uint8-overflow",
        "zh",
    ),
    # ------------------------------------------------------------------ variable-volatile
    (
        """eval.py:57: UserWarning: volatile was removed and now has no effect. Use `with torch.no_grad():` instead.
  input_var = torch.autograd.Variable(input, volatile=True)
Test: [0/313]	Time 2.113 (2.113)	Loss 0.8123 (0.8123)""",
        "variable-volatile",
        "error",
    ),
    (
        "running the test script of an old pytorch 0.3 repo, memory explodes during evaluation and "
        "the GPU goes OOM after a few hundred batches. they use Variable(x, volatile=True)",
        "variable-volatile",
        "en",
    ),
    (
        "老代码里的 Variable(volatile=True) 现在还有用吗？测试的时候显存一直涨",
        "variable-volatile",
        "zh",
    ),
    # ------------------------------------------------------------------ view-vs-permute
    (
        """Traceback (most recent call last):
  File "/home/h/vit/model.py", line 63, in forward
    x = x.transpose(1, 2).view(B, N, C)
RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.""",
        "view-vs-permute",
        "error",
    ),
    (
        "to show an image with matplotlib I did img.view(H, W, 3) on a (3, H, W) tensor, and the "
        "picture looks like a 3x3 grid of grayscale copies",
        "view-vs-permute",
        "en",
    ),
    (
        "把 (B,C,H,W) 的特征图 view 成 (B,H,W,C) 之后结果不对，view 和 permute 有什么区别",
        "view-vs-permute",
        "zh",
    ),
    # ------------------------------------------------------------------ where-nan-grad
    (
        """/home/o/.venv/lib/python3.10/site-packages/torch/autograd/graph.py:768: UserWarning: Error detected in SqrtBackward0. Traceback of forward call that caused the error:
  File "chamfer.py", line 19, in pairwise_dist
    d = ((a[:, None] - b[None]) ** 2).sum(-1).sqrt()
 (Triggered internally at ../torch/csrc/autograd/python_anomaly_mode.cpp:116.)
  return Variable._execution_engine.run_backward(
Traceback (most recent call last):
  File "train.py", line 77, in <module>
    loss.backward()
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.""",
        "where-nan-grad",
        "error",
    ),
    (
        "I use torch.where(d > 0, torch.log(d), 0) to avoid log(0); the forward value is fine but "
        "the gradients come out NaN",
        "where-nan-grad",
        "en",
    ),
    (
        "用 torch.where 把负数屏蔽掉再开根号，前向结果没问题，反向传播的梯度全是 nan",
        "where-nan-grad",
        "zh",
    ),
    # ------------------------------------------------------------------ worker-dataset-copy
    (
        "I set dataset.epoch = epoch before each epoch so my augmentation gets stronger over "
        "time, but with persistent_workers=True the workers always see epoch 0",
        "worker-dataset-copy",
        "en",
    ),
    (
        "在 __getitem__ 里面往 self.cache 写缓存，num_workers>0 的时候主进程里的缓存一直是空的",
        "worker-dataset-copy",
        "zh",
    ),
    # ------------------------------------------------------------------ worker-rng-duplicates
    (
        "random augmentation in my Dataset uses self.rng = np.random.default_rng() created in "
        "__init__; with 4 workers I get the same crops 4 times in every batch",
        "worker-rng-duplicates",
        "en",
    ),
    (
        "多个 worker 做出来的数据增强结果一模一样，每个 epoch 的随机裁剪也一样，随机种子应该怎么设置",
        "worker-rng-duplicates",
        "zh",
    ),
    # ------------------------------------------------------------------ zero-grad-missing
    (
        """Traceback (most recent call last):
  File "linreg.py", line 30, in <module>
    w.grad.data.zero_()
AttributeError: 'NoneType' object has no attribute 'data'""",
        "zero-grad-missing",
        "error",
    ),
    (
        "the loss decreases for a few iterations and then oscillates wildly and grows, even with "
        "a tiny learning rate. my loop is forward, loss.backward(), optimizer.step()",
        "zero-grad-missing",
        "en",
    ),
    (
        "训练循环里忘了写 optimizer.zero_grad() 会怎么样？loss 一直在震荡",
        "zero-grad-missing",
        "zh",
    ),
    # ================================================================== recipes added later
    # Written by a third author (the search's owner) for the 53 recipes added when the
    # catalogue grew past 78 (compile and export, attention and precision, memory,
    # distributed, Apple MPS, environment), from their Symptom sections and before the
    # ranking was tuned for them, without their recipe.toml open: tracebacks as pasted (logs
    # with `[rank0]:` and glog prefixes, Windows paths, chained messages, older wordings) and
    # questions in the words of forum posts, in English and Chinese.
    (
        """[rank0]:W1130 14:22:07.512000 88213 site-packages/torch/_dynamo/convert_frame.py:964] [0/8] torch._dynamo hit config.recompile_limit (8)
[rank0]:W1130 14:22:07.512000 88213 site-packages/torch/_dynamo/convert_frame.py:964] [0/8]    function: 'forward' (/home/lin/proj/models/policy.py:88)
[rank0]:W1130 14:22:07.512000 88213 site-packages/torch/_dynamo/convert_frame.py:964] [0/8]    last reason: 0/7: self.global_step == 7
[rank0]:W1130 14:22:07.512000 88213 site-packages/torch/_dynamo/convert_frame.py:964] [0/8] To log all recompilation reasons, use TORCH_LOGS="recompiles".""",
        "compile-recompiles",
        "error",
    ),
    (
        "torch.compile on my BERT classifier is slower than eager in real training. every batch is "
        "padded to its own max length and TORCH_LOGS=recompiles prints a new compile for almost every step",
        "compile-variable-seq-len",
        "en",
    ),
    (
        "compiled my model with torch.compile and got basically zero speedup. dynamo explain says "
        "Graph Break Count: 12, apparently from a print() and a .item() call inside forward",
        "compile-graph-breaks",
        "en",
    ),
    (
        "torch.compile 之后几乎没有加速，用 dynamo explain 看到好多图中断，是不是 forward 里的 print 导致的",
        "compile-graph-breaks",
        "zh",
    ),
    (
        """Traceback (most recent call last):
  File "/home/ana/exp/train.py", line 61, in <module>
    loss = compiled(x).sum()
  File "/opt/conda/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 451, in _fn
    return fn(*args, **kwargs)
  File "/opt/conda/lib/python3.11/site-packages/torch/_dynamo/convert_frame.py", line 921, in catch_errors
    return callback(frame, cache_entry, hooks, frame_state, skip=1)
torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
RuntimeError: Cannot find a working triton installation. More information on installing Triton can be found at https://github.com/openai/triton

Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information


You can suppress this exception and fall back to eager by setting:
    import torch._dynamo
    torch._dynamo.config.suppress_errors = True""",
        "compile-toolchain",
        "error",
    ),
    (
        "Windows 上用 torch.compile 一运行就报找不到可用的 C++ 编译器，是不是得先装 Visual Studio",
        "compile-toolchain",
        "zh",
    ),
    (
        "benchmarked torch.compile vs eager with time.time() around the first call and the compiled "
        "one takes 40 seconds against 0.02 s eager. is compile broken on my machine?",
        "compile-warmup-timing",
        "en",
    ),
    (
        "模型 torch.compile 之后，再给某一层注册的 forward hook 根本不执行，收集激活的列表一直是空的",
        "compile-state-changes",
        "zh",
    ),
    (
        """Traceback (most recent call last):
  File "C:\\Users\\mei\\deploy\\serve.py", line 40, in predict
    out = ep.module()(batch)
  File "C:\\Users\\mei\\miniconda3\\Lib\\site-packages\\torch\\fx\\graph_module.py", line 822, in call_wrapped
    return self._wrapped_call(self, *args, **kwargs)
  File "C:\\Users\\mei\\miniconda3\\Lib\\site-packages\\torch\\export\\_unlift.py", line 60, in _check_input_constraints_pre_hook
    return _check_input_constraints_for_graph(
RuntimeError: Expected input at *args[0].shape[0] to be equal to 1, but got 16""",
        "export-dynamic-shapes",
        "error",
    ),
    (
        "torch.export 导出模型的时候报 data-dependent 的错，模型 forward 里有一个 if mask.sum() > 0 的分支，eager 下跑得好好的",
        "export-data-dependent",
        "zh",
    ),
    (
        "model traced with torch.jit.trace gives different outputs than the python model on longer "
        "inputs. there was some TracerWarning when I traced it but I ignored it",
        "jit-trace-control-flow",
        "en",
    ),
    (
        "switched my transformer from nn.MultiheadAttention to F.scaled_dot_product_attention and passed "
        "the same boolean padding mask. now the training loss is suspiciously low and generation is garbage",
        "attention-mask-polarity",
        "en",
    ),
    (
        "注意力掩码是不是传反了？SDPA 里 attn_mask 为 True 的位置到底是屏蔽还是参与计算",
        "attention-mask-polarity",
        "zh",
    ),
    (
        "transformer loss turns into nan on the batch that has an empty sequence. I masked_fill the "
        "padded keys with -inf before the softmax",
        "attention-fully-masked-nan",
        "en",
    ),
    (
        """  File "/workspace/llm/modeling.py", line 233, in forward
    attn = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=self.p)
RuntimeError: Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: float and  query.dtype: c10::BFloat16 instead.""",
        "sdpa-mask-dtype",
        "error",
    ),
    (
        """Traceback (most recent call last):
  File "/home/tom/nmt/train.py", line 144, in <module>
    logits = model(src, tgt, src_mask)
  File "/home/tom/nmt/model.py", line 71, in forward
    scores = scores.masked_fill(mask == 0, -1e9)
RuntimeError: value cannot be converted to type at::Half without overflow""",
        "fp16-fill-overflow",
        "error",
    ),
    (
        """Traceback (most recent call last):
  File "finetune.py", line 212, in <module>
    scaler.step(optimizer)
  File "/usr/local/lib/python3.10/dist-packages/torch/amp/grad_scaler.py", line 451, in step
    self.unscale_(optimizer)
  File "/usr/local/lib/python3.10/dist-packages/torch/amp/grad_scaler.py", line 338, in unscale_
    optimizer_state["found_inf_per_device"] = self._unscale_grads_(
  File "/usr/local/lib/python3.10/dist-packages/torch/amp/grad_scaler.py", line 260, in _unscale_grads_
    raise ValueError("Attempting to unscale FP16 gradients.")
ValueError: Attempting to unscale FP16 gradients.""",
        "gradscaler-bf16",
        "error",
    ),
    (
        "I converted the model with .half() to save memory and train it with Adam, no autocast. after "
        "the first optimizer step every weight is nan",
        "fp16-adam-eps",
        "en",
    ),
    (
        "用了 torch.autocast 混合精度以后，forward 里有一层报数据类型不一致，一边是 BFloat16 一边是 Float",
        "autocast-dtype-mismatch",
        "zh",
    ),
    (
        "bf16 training is 3x slower than fp32 on a colab T4, but torch.cuda.is_bf16_supported() says True??",
        "bf16-unsupported-gpu",
        "en",
    ),
    (
        """Traceback (most recent call last):
  File "/data/seg/train.py", line 98, in <module>
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.64 GiB of which 812.56 MiB is free. Including non-PyTorch memory, this process has 22.83 GiB memory in use. Of the allocated memory 14.20 GiB is allocated by PyTorch, and 8.18 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)""",
        "cuda-memory-fragmentation",
        "error",
    ),
    (
        "显存明明还有 8G 被 PyTorch 预留着没分配，还是报 OOM，是显存碎片的问题吗？脚本里设置了 expandable_segments 也没用",
        "cuda-memory-fragmentation",
        "zh",
    ),
    (
        "validation loop goes OOM after a few hundred batches while training is fine. I append the "
        "logits of every batch to a list so I can compute the AUC at the end",
        "accumulate-outputs-memory",
        "en",
    ),
    (
        "7B 模型的 bf16 权重文件才 14G，加载到 24G 的显卡上就爆显存了，是加载方式不对吗",
        "load-dtype-memory",
        "zh",
    ),
    (
        """Traceback (most recent call last):
  File "/home/r/gen/sample.py", line 57, in <module>
    ids = model.generate(prompt, max_new_tokens=64)
  File "/home/r/.local/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1931, in __getattr__
    raise AttributeError(
AttributeError: 'DistributedDataParallel' object has no attribute 'generate'""",
        "ddp-module-attributes",
        "error",
    ),
    (
        "多卡 DDP 训练到 epoch 快结束的时候卡住不动了，也不报错，过了半小时才报 NCCL 超时，数据是我自己按 rank 切分的",
        "ddp-uneven-inputs-hang",
        "zh",
    ),
    (
        "同一台机器上再起一个 torchrun 任务就报 29500 端口被占用，怎么换端口",
        "distributed-port-in-use",
        "zh",
    ),
    (
        "running my DDP script with plain python train.py to debug it crashes at DistributedSampler "
        "saying the default process group has not been initialized",
        "process-group-not-initialized",
        "en",
    ),
    (
        """/opt/conda/lib/python3.10/site-packages/torch/distributed/launch.py:183: FutureWarning: The module torch.distributed.launch is deprecated
and will be removed in future. Use torchrun.
Note that --use-env is set by default in torchrun.
  warnings.warn(
usage: train.py [-h] [--local_rank LOCAL_RANK] [--epochs EPOCHS]
train.py: error: unrecognized arguments: --local-rank=1
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 2) local_rank: 0 (pid: 5121) of binary: /opt/conda/bin/python""",
        "torchrun-local-rank",
        "error",
    ),
    (
        """Traceback (most recent call last):
  File "/home/wu/det/train_ddp.py", line 30, in <module>
    torch.cuda.set_device(local_rank)
  File "/home/wu/.conda/envs/det/lib/python3.9/site-packages/torch/cuda/__init__.py", line 404, in set_device
    torch._C._cuda_setDevice(device)
RuntimeError: CUDA error: invalid device ordinal
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.""",
        "invalid-device-ordinal",
        "error",
    ),
    (
        "in DDP only rank 0 saves the checkpoint, then every rank loads it right away to evaluate the "
        "best model, and rank 3 crashes with FileNotFoundError",
        "distributed-save-every-rank",
        "en",
    ),
    (
        "FSDP 训练保存 checkpoint 的时候只在 rank 0 上调用了 get_model_state_dict，结果程序卡住，最后超时",
        "fsdp-state-dict",
        "zh",
    ),
    (
        "DDP validation accuracy printed on rank 0 changes when I go from 2 GPUs to 4, same checkpoint",
        "ddp-metrics-per-rank",
        "en",
    ),
    (
        "M1 Mac 上 torch.backends.mps.is_available() 返回 False，系统是 macOS 14，Python 是用 x86 的 conda 装的",
        "mps-not-available",
        "zh",
    ),
    (
        "on my macbook m2 torchvision nms is not implemented for the MPS device. I set "
        "PYTORCH_ENABLE_MPS_FALLBACK=1 in the notebook and still get the same error",
        "mps-unsupported-op",
        "en",
    ),
    (
        """Traceback (most recent call last):
  File "/Users/kim/sd/txt2img.py", line 88, in <module>
    image = pipe(prompt).images[0]
RuntimeError: MPS backend out of memory (MPS allocated: 17.93 GB, other allocations: 1.20 GB, max allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause system failure).""",
        "mps-out-of-memory",
        "error",
    ),
    (
        "同一个模型在苹果芯片的 mps 上和 cpu 上算出来的 loss 差很多，mps 上训练不收敛，怎么定位是哪个算子出的问题",
        "mps-check-against-cpu",
        "zh",
    ),
    (
        """A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.1.3 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.

Traceback (most recent call last):  File "/home/p/app.py", line 2, in <module>
    import torchvision
  File "/home/p/venv/lib/python3.10/site-packages/torchvision/__init__.py", line 6, in <module>
    from torchvision import _meta_registrations, datasets, io, models, ops, transforms, utils
AttributeError: _ARRAY_API not found""",
        "numpy-abi-mismatch",
        "error",
    ),
    (
        "jupyter kernel dies every time I call plt.show() after training on my mac, no traceback at all. "
        "someone said to set KMP_DUPLICATE_LIB_OK=TRUE, is that safe?",
        "openmp-duplicate-runtime",
        "en",
    ),
    (
        """Traceback (most recent call last):
  File "/Users/ben/Desktop/torch.py", line 2, in <module>
    import torch.nn as nn
  File "/Users/ben/Desktop/torch.py", line 2, in <module>
    import torch.nn as nn
ModuleNotFoundError: No module named 'torch.nn'; 'torch' is not a package""",
        "module-shadowing",
        "error",
    ),
    (
        "Windows 下 DataLoader 的 num_workers 设成 4 就报 RuntimeError，网上说要把代码放到 if __name__ == '__main__' 下面",
        "main-guard-spawn",
        "zh",
    ),
    (
        """Traceback (most recent call last):
  File "debug_loader.py", line 19, in <module>
    loader = DataLoader(ds, batch_size=32, num_workers=0, persistent_workers=True)
  File "/home/n/.venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py", line 268, in __init__
    raise ValueError("persistent_workers option needs num_workers > 0")
ValueError: persistent_workers option needs num_workers > 0""",
        "dataloader-options-without-workers",
        "error",
    ),
    (
        "GPU utilization keeps jumping between 0 and 100% and training is slow. num_workers is 0 and "
        "I decode the jpegs with PIL in __getitem__",
        "dataloader-throughput",
        "en",
    ),
    (
        """Traceback (most recent call last):
  File "infer.py", line 12, in <module>
    model = torch.load("unet_best.pth", weights_only=False)
  File "/home/s/miniconda3/lib/python3.11/site-packages/torch/serialization.py", line 1384, in load
    return _load(
  File "/home/s/miniconda3/lib/python3.11/site-packages/torch/serialization.py", line 1872, in _load
    result = unpickler.load()
  File "/home/s/miniconda3/lib/python3.11/site-packages/torch/serialization.py", line 1861, in find_class
    return super().find_class(mod_name, name)
AttributeError: Can't get attribute 'UNet' on <module '__main__' from '/home/s/seg/infer.py'>""",
        "whole-model-pickle",
        "error",
    ),
    (
        """Traceback (most recent call last):
  File "resume.py", line 33, in <module>
    ckpt = torch.load(args.resume, map_location="cpu")
  File "/home/j/.venv/lib/python3.12/site-packages/torch/serialization.py", line 1470, in load
    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
	(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
	(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
	WeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default. Please use `torch.serialization.add_safe_globals([argparse.Namespace])` or the `torch.serialization.safe_globals([argparse.Namespace])` context manager to allowlist this global if you trust this class/function.

Check the documentation of torch.load to learn more about types accepted by default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.""",
        "checkpoint-objects-weights-only",
        "error",
    ),
    (
        "从 huggingface 上 git clone 下来的 pytorch_model.bin 只有 134 字节，torch.load 一直报 pickle 的错",
        "checkpoint-not-a-checkpoint",
        "zh",
    ),
    (
        "old pytorch 0.3 tutorial code: train_loss += loss.data[0] now raises an IndexError",
        "zero-dim-index",
        "en",
    ),
    (
        "torch.solve was removed in newer versions, what do I replace it with? porting an old physics repo",
        "deprecated-apis",
        "en",
    ),
    (
        "灰度图喂给预训练的 resnet 报错，说通道数不对，期望 3 个通道",
        "conv-input-channels",
        "zh",
    ),
    (
        "pretrained resnet50 predicts the same wrong class for every image. I load them with "
        "torchvision.io.read_image and then normalize with the imagenet mean and std",
        "image-tensor-scale",
        "en",
    ),
    (
        """Traceback (most recent call last):
  File "/home/q/asr/model.py", line 52, in forward
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
  File "/home/q/.venv/lib/python3.10/site-packages/torch/nn/utils/rnn.py", line 338, in pack_padded_sequence
    data, batch_sizes = _VF._pack_padded_sequence(input, lengths, batch_first)
RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor""",
        "rnn-pack-lengths",
        "error",
    ),
    (
        "batch size 从 16 改成 128 以后训练就发散了，学习率没动，loss 用的是 reduction='sum'",
        "loss-reduction-scale",
        "zh",
    ),
    (
        "with torch.compile mode=reduce-overhead, keeping the outputs in a list for metrics fails with "
        "an error that the tensor output of CUDAGraphs was overwritten by a subsequent run",
        "cudagraphs-output-overwritten",
        "en",
    ),
    (
        "fine-tune 的时候冻结了 backbone，可是 model.eval() 之后验证集准确率掉了一大截",
        "bn-eval-running-stats",
        "zh",
    ),
]

# Another recipe that is a defensible answer where the text is genuinely shared: the same
# message raised by two different mistakes. Used only for the lenient number.
ACCEPTABLE = {
    "parameter-vs-buffer": {"device-mismatch"},
    "numpy-float64": {"to-is-not-inplace", "parameter-vs-buffer"},
    "detach": {"inplace-autograd"},
    "squeeze-batch-of-one": {"bn-batch-size-1"},
    "bn-batch-size-1": {"dataloader-len"},
    "gradient-reversal": {"numpy-aliases-removed"},
    "numpy-aliases-removed": {"gradient-reversal"},
    "variable-volatile": {"loss-history-leak"},
    "loss-history-leak": {"variable-volatile"},
    "scatter-one-hot": {"loss-target-dtype"},
    "int-division": {"loss-target-dtype"},
    "float-sum-order": {"cudnn-benchmark-determinism", "tf32-matmul"},
    "cudnn-benchmark-determinism": {"float-sum-order"},
    "tf32-matmul": {"float-sum-order", "cudnn-benchmark-determinism"},
    # Recipes added later that own the case's message verbatim in their `errors`: the same
    # message, another mistake ("Float and Half" from a `.half()` model; a NumPy scalar in a
    # checkpoint; the bootstrapping error of a script without a main guard).
    "to-is-not-inplace": {"numpy-float64", "device-mismatch", "autocast-dtype-mismatch"},
    "torch-load-weights-only": {"checkpoint-objects-weights-only"},
    "checkpoint-objects-weights-only": {"torch-load-weights-only"},
    "spawn-pickle-lambda": {"main-guard-spawn"},
    "gradscaler-bf16": {"fp16-overflow-gradscaler"},
}

# Queries no recipe explains: a confident answer to any of them is a wrong answer.
UNRELATED = [
    """Traceback (most recent call last):
  File "preprocess.py", line 3, in <module>
    import cv2
ModuleNotFoundError: No module named 'cv2'""",
    """Traceback (most recent call last):
  File "make_split.py", line 14, in <module>
    y = df["label"].values
  File "/home/u/.venv/lib/python3.10/site-packages/pandas/core/frame.py", line 3761, in __getitem__
    indexer = self.columns.get_loc(key)
  File "/home/u/.venv/lib/python3.10/site-packages/pandas/core/indexes/base.py", line 3655, in get_loc
    raise KeyError(key) from err
KeyError: 'label'""",
    """Traceback (most recent call last):
  File "train.py", line 21, in <module>
    df = pd.read_csv("data/train.csv")
FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'""",
    """  File "/home/u/proj/utils.py", line 12
    print(f"epoch {epoch:03d} loss {loss:.4f")
                                               ^
SyntaxError: f-string: expecting '}'""",
    "how do I install tensorflow-gpu on windows 11 with anaconda",
    "sklearn RandomForestClassifier overfits badly, how should I tune max_depth and min_samples_leaf",
    "my model accuracy is bad, how can I improve it?",
    "nvidia-smi: command not found after installing the driver on Ubuntu 22.04",
    "how to install CUDA toolkit 12.1 and cuDNN on ubuntu, apt keeps pulling the wrong version",
    "ERROR: Could not find a version that satisfies the requirement torch==1.8.0 (from versions: 2.2.0, 2.2.1, 2.3.0)",
    "matplotlib plot does not show up in jupyter notebook",
    """Traceback (most recent call last):
  File "report.py", line 8, in <module>
    msg = "total: " + count
TypeError: can only concatenate str (not "int") to str""",
    "how do I resolve a git merge conflict in a jupyter notebook",
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xd6 in position 0: invalid continuation byte when reading a csv",
    "ImportError: libGL.so.1: cannot open shared object file: No such file or directory (opencv in docker)",
    "how to draw a confusion matrix as a seaborn heatmap with class names on the axes",
    """Traceback (most recent call last):
  File "keras_train.py", line 40, in <module>
    model.fit(X, y, epochs=10)
ValueError: Shapes (None, 1) and (None, 10) are incompatible""",
    """Traceback (most recent call last):
  File "merge.py", line 22, in <module>
    df = df.append(row, ignore_index=True)
AttributeError: 'DataFrame' object has no attribute 'append'""",
    "jax jit recompiles my function on every call, how do I avoid retracing",
    "what learning rate should I use for Adam when fine-tuning a ViT?",
    "how to add new special tokens to a huggingface tokenizer and resize the embeddings",
    "ValueError: could not convert string to float: 'N/A' when calling np.array(rows, dtype=float)",
    "conda 创建虚拟环境特别慢，一直卡在 Solving environment",
    "pandas 读取 excel 报错，提示缺少 openpyxl",
    "我的模型效果不好，准确率只有 60%，该怎么提升",
    "ubuntu 安装 nvidia 显卡驱动之后黑屏，进不去桌面了",
    "pip 安装包太慢了，怎么换成清华源",
    "python 字典取值报 KeyError 怎么处理比较优雅",
    "LaTeX 表格太宽了，怎么让单元格里的文字自动换行",
    "transformers 加载 tokenizer 的时候怎么添加新的 special token",
]
