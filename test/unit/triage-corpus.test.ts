import { describe, expect, it } from 'vitest';
import { loadCorpus, ratio, scoreCorpus, splitOf, splitsOf } from './triage-corpus-score';

/**
 * Accuracy on the labelled corpus of real logs (test/fixtures/logs). The floors are the measured
 * scores (docs/TRIAGE.md); a change that lowers either kind or exact-number accuracy fails here.
 * `holdout` was set aside when the corpus was built and never used to tune the signatures;
 * `blind` was collected after the engine was frozen, `blind2` after the fixes the first blind run
 * prompted, `blind3` after those, `blind4` after blind3's, `blind5` after blind4's (their first-run scores are in
 * docs/TRIAGE.md; the floors here are the scores after each batch's gaps were filled); `blind6` was scored
 * after blind5's fixes (its one miss was later covered by a pass over leftover message classes); `blind7`
 * was scored after that pass and not tuned, so its floor is its first run. `blind8` (112 logs) was scored
 * untuned first (kind 99/112, exact numbers 278/302); its floor is the score after its misses were filled
 * as message classes (the longer traceback body read for that also gave blind5 its last frame). `blind9`
 * (112 logs) was scored untuned first (kind 81/112, exact numbers 167/201); its floor is the score after its
 * misses were filled as message classes (kind 111/112: 946 is labelled not-oom, which the engine's documented
 * reading of TensorFlow's cuDNN initialisation failure does not follow). `blind10` (112 logs picked in
 * search-rank order from generic queries) was scored untuned first (kind 82/112, exact numbers 185/205);
 * most misses were failures no signature read, so the engine got two fallbacks (any other failure ->
 * not-oom, any other out-of-memory wording -> catchable-oom) and its other misses were filled as message
 * classes; its floor is the score after that (kind 112/112, exact numbers 205/205; four platform misses
 * are left, logs that name no accelerator but are labelled cuda/xla-tpu from their threads). `blind11` (112
 * logs, a second set of generic queries) was scored untuned first (kind 58/112, exact numbers 79/108); its
 * floor is the score after its misses were filled as message classes, kind 101/112 and exact numbers 102/108 (host kills told by parents and
 * cgroups, native failures and cut tracebacks in the not-oom fallback, other libraries' OOM texts).
 * `blind12` (104 logs, rank-order again) was scored once, untuned: first run
 * kind 89/104, exact numbers 198/213. Its floor is the score after its misses were filled as message classes,
 * kind 99/104 and exact numbers 209/213 (launcher-only failures, NCCL's error trace, GPU driver faults, CUDA-only
 * words for a not-oom platform, cudaMallocAsync's cut head, XLA with GPU BFC, this process listed by pid).
 * `blind13` (96 logs, rank-order) was scored once with the engine after that and left untuned: its first run
 * (kind 74/96, exact numbers 114/126) is its floor.
 * `blind14` (95 logs, rank-order, fourth session) was scored once with the third session's final engine:
 * first run kind 68/95, exact numbers 52/68; its floor is the score after its misses were filled as classes.
 * `blind15` (96 logs, rank-order, fourth session) was scored once with the engine after blind14's classes:
 * first run kind 77/96, exact 83/92; after its classes were filled: kind 89/96, exact 87/92.
 * `blind16` (96 logs, rank-order, fourth session) was scored once with the engine after blind15's classes:
 * first run kind 75/96, exact 90/98; after its classes were filled: kind 94/96, exact 98/98.
 * `blind17` (92 logs, rank-order, fourth session) was scored once with the engine after blind16's classes:
 * first run kind 64/92, exact 108/117; after its classes were filled: kind 79/92, exact 115/117.
 * `blind18` (75 logs, rank-order, fourth session) was scored once with the engine after blind17's classes:
 * first run kind 53/75, exact 61/74; after its classes were filled: kind 70/75, exact 70/74.
 * `blind19` (96 logs, rank-order, fifth session, new query families) was scored once with the engine after
 * blind18's classes: first run kind 73/96, exact 89/97; after its classes were filled: kind 92/96, exact 96/97.
 * `blind20` (96 logs, rank-order, fifth session, new query families) was scored once with the engine after
 * blind19's classes: first run kind 75/96, exact 91/94; after its classes were filled: kind 91/96, exact 94/94.
 * `blind21` (96 logs, rank-order, fifth session, new query families) was scored once with the engine after
 * blind20's classes: first run kind 76/96, exact 57/70; after its classes were filled: kind 94/96, exact 70/70.
 * `blind22` (95 logs, rank-order, fifth session, new query families) was scored once with the engine after
 * blind21's classes: first run kind 75/95, exact 89/99; after its classes were filled: kind 87/95, exact 94/99.
 * `blind23` (93 logs, rank-order, fifth session, queries on training-failure wordings) was scored once with the
 * engine after blind22's classes: first run kind 86/93, exact 137/147; after its classes were filled: kind 92/93,
 * exact 147/147.
 * `blind24` (92 logs, rank-order, fifth session, queries on training-failure wordings) was scored once with the
 * same engine as blind23: first run kind 81/92, exact 152/160; after its classes were filled: kind 91/92,
 * exact 160/160.
 * `blind25` (95 logs, rank-order, sixth session, queries on fine-tuning OOMs, NCCL/host kills, non-CUDA
 * allocator texts and CUDA look-alikes) was scored once with the engine after blind23/24's first classes,
 * untuned: first run kind 71/95, exact 121/132; after its classes were filled: kind 88/95, exact 125/132.
 * `blind26` (85 logs, rank-order, sixth session, queries on allocator settings and fragmentation, hangs,
 * TensorFlow/MXNet/JAX/Paddle/onnxruntime/TensorRT OOMs and host allocation failures) was scored once with the
 * engine during blind23/24's classes, untuned on it: first run kind 76/85, exact 141/150; after its classes were
 * filled: kind 80/85, exact 148/150.
 * `blind27` (96 logs, rank-order, sixth session, queries on inference servers (vLLM, SGLang, TGI, llama.cpp,
 * Ollama, ExLlamaV2), RL trainers and Ray, consumer GPUs (MPS, ROCm gfx1100, DirectML, XPU, MLX, Vulkan) and
 * CUDA look-alikes) was scored once with the engine during blind23/24's classes, untuned on it: first run
 * kind 67/96, exact 105/118; after its classes were filled: kind 90/96, exact 117/118.
 * `blind28` (87 logs, rank-order, sixth session, queries on PyTorch OOM wordings of every era, Colab/Kaggle/Jupyter
 * kernel deaths, Slurm/Kubernetes/torchrun kills and time limits, and framework training loops (accelerate,
 * Lightning, Keras, JAX, Trainer, torch_xla)) was scored once with the engine after blind23/24's classes, untuned on
 * it: first run kind 60/87, exact 99/106; after its classes were filled: kind 86/87, exact 103/106. Nine of one
 * app's auto-filed Java crash reports
 * (backgroundappslist, same template) were dropped before scoring; its first (2604) stays.
 * `blind29` (86 logs, rank-order, sixth session, queries on training OOMs (LoRA/QLoRA/SFT/text-to-image/YOLO),
 * multi-GPU OOMs (ProcessGroupNCCL, FSDP, DeepSpeed, torchrun, Megatron), non-CUDA OOMs in training and training
 * crashes that are not OOMs) was scored once with the session's final engine, after blind25-28's classes, untuned
 * on it: first run kind 78/86, exact 123/136; after its classes were filled: kind 85/86, exact 136/136. Seven of eight
 * Continue/Ollama one-liners with one template ('model requires more system memory') were dropped before scoring;
 * 2706 stays.
 * `blind30` (72 logs, rank-order, seventh session, queries on fine-tuning frameworks, distributed and container kills,
 * non-CUDA OOMs and CUDA look-alikes) was scored once with the engine of 9fcce36 (the stated-failure last resort in),
 * untuned: kind 68/72, exact numbers 50/55. Dropped before scoring: a repost of 1932 (2801), two of three Crashlytics
 * reports of one template (2808, 2809), and another backgroundappslist template report (2818).
 * `blind31` (88 logs, rank-order, seventh session, queries on ROCm aborts and RCCL, NCCL/NVSHMEM allocation and NVLS,
 * OOMs in evaluation, generation and checkpoint loading, Ascend/MindSpore/HCCL, Tenstorrent and DataLoader bus errors)
 * was scored once with the engine of 0c30d80 (after blind30's classes), untuned: kind 76/88, exact numbers 145/163.
 * Three more backgroundappslist template reports (2897-2899) were dropped before scoring.
 * `blind32` (95 logs, rank-order, seventh session, queries on training frameworks (mmdetection, detectron2, fairseq,
 * colossalai, ultralytics), Slurm/torchrun/elastic/rendezvous/mpirun failures, NPU/XPU/ROCm/HPU/JAX runtime errors, and
 * vLLM/SGLang/torch.compile/flash-attn OOMs and errors) was scored once with the engine of eafb0f1 (after blind31's
 * classes): kind 85/95, exact numbers 120/141. 2999, a byte-identical repost of 1831, was dropped.
 * `blind33` (86 logs, rank-order, seventh session, queries on training OOMs on current GPUs and sharding (RTX 5090, H100,
 * FSDP2, ZeRO-3, activation checkpointing, evaluation), NCCL/gloo hangs and aborts, ROCm/MPS/XLA/torch_xla/Gaudi errors,
 * host kills and data loading) was scored once with the engine of 3923d28 (after blind32's classes), untuned: kind
 * 82/86, exact numbers 167/173. Dropped before scoring: 3091 (byte-identical to 3090), 3098 (a log already in the corpus
 * under another thread), 3109 (a cross-post of 3108).
 * `blind34` (84 logs, rank-order, seventh session, queries on training OOMs (Trainer, LoRA/Flux/SDXL, DeepSpeed stage 2,
 * GRPO/PPO, batch size 1, gradient accumulation), NCCL watchdog/system/internal errors and timeouts, allocator OOMs on
 * HIP/NPU/XPU/MPS/XLA/HPU, and CUDA look-alikes and host kills) was scored once with the engine of 80d1b89 (after
 * blind33's classes), untuned: kind 71/84, exact numbers 95/104.
 * `blind35` (91 logs, rank-order, seventh session, queries on training OOMs (model.to, backward, accelerator.backward,
 * validation, torch.compile, DataParallel), NCCL barrier timeouts, SIGKILL/oom-kill under torchrun and Slurm, HCCL/XCCL
 * watchdogs, DeepSpeed's exits, HIP/NPU/XPU/MPS/TPU/Gaudi errors, and CUDA/cuDNN errors, asserts, core dumps, bus errors
 * and kills) was scored once with the engine of 9a19286 (after blind34's classes), untuned: kind 81/91, exact numbers
 * 97/113.
 * `blind36` (28 logs, rank-order, seventh session, two collectors on the last of the search budget, queries on training
 * OOMs on A100/H100/4090 and NCCL/torchrun/watchdog/DistBackendError/HIP failures) was scored once with the session's
 * final engine (9b4cc9f) and left untuned: kind 27/28, exact numbers 50/56.
 * `blind37` (90 logs, rank-order, eighth session, with a fresh search budget, queries on older PyTorch OOM eras and
 * inference, distributed failures (ChildFailedError, NCCL errors, DeepSpeed, accelerate), other frameworks (TensorFlow,
 * JAX, Paddle, onnxruntime, llama.cpp/ollama, MXNet) and look-alikes (HIP, NPU, kills, illegal access, cuBLAS/cuDNN
 * allocation statuses)) was scored once with the engine of 7cc13fe, untuned: kind 78/90, exact numbers 124/131.
 * `blind38` (73 logs, rank-order, eighth session, queries on Colab/Whisper/YOLO/RTX 3060 OOMs, NCCL timeouts, SIGKILL and
 * OOMKilled, HIP/MPS/TPU/XPU/NPU/HPU OOMs of 2023-24, and CUDA look-alikes of 2023 (asserts, illegal access, cuDNN, no
 * kernel image, segfaults, launch failures)) was scored once with the engine of c303194 (after blind37's classes),
 * untuned: kind 66/73, exact numbers 88/97.
 * `blind39` (69 logs, rank-order, eighth session, queries on Kaggle/sentence-transformers/Lightning/WhisperX/VAE/predict
 * OOMs, DistBackendError/ncclSystemError/FSDP/Megatron/ncclRemoteError/NET-IB failures, MLX/JAX/TensorFlow/onnxruntime/vLLM/
 * SGLang memory errors, and host kills (exit 137, memory cgroup, slurmstepd, dmesg, MemoryError, bus errors); three of the
 * four collectors ran dry, the index saturated) was scored once with the engine of f393719, untuned: kind 62/69, exact
 * numbers 83/99.
 * `blind40` (95 logs, rank-order, eighth session, queries on the applications users run (Stable Diffusion web UIs,
 * InvokeAI, Fooocus, kohya, DreamBooth; text-generation-webui, exllama, llama/Qwen/ChatGLM/Baichuan/InternLM inference),
 * Chinese and Japanese queries, and mmcv/nerfstudio/instant-ngp/gaussian splatting/espnet/timm/transformers) was scored
 * once with the engine of 332c804 (after blind39's classes and the review's fixes), untuned: kind 85/95, exact numbers
 * 304/309.
 * `blind41` (96 logs, rank-order, eighth session, queries on ComfyUI/SUPIR/InstantID/Wan/HunyuanVideo/AnimateDiff/Flux,
 * voice and audio tools (RVC, so-vits, GPT-SoVITS, whisper, Bark/XTTS/tortoise, demucs/UVR, MusicGen), Chinese queries on
 * GPU memory, and research repos' train/test/inference/demo/eval/main scripts of 2019-22) was scored once with the
 * engine of 2ccdb37 (after blind40's classes), untuned: kind 95/96, exact numbers 365/376.
 * `blind42` (86 logs, rank-order, eighth session, queries of 2025 across the board: OOMs on RTX 5090/H200/B200, LoRA and
 * inference; torch.distributed/NCCL/ProcessGroupNCCL/ChildFailedError/DeepSpeed/FSDP errors; MI300X/NPU/XPU/MPS/TPU/Gaudi
 * errors; kills, segfaults, illegal access, asserts, exit 137, MemoryError; one collector ran dry at 14 logs) was scored
 * once with the session's final engine (3f7871d), untuned: kind 73/86, exact numbers 136/141.
 * `blind43` (39 logs, rank-order, eighth session, two collectors in the session's last minutes on general OOM, CUDA, NCCL,
 * kill and MemoryError queries of 2023-24; one ran dry at 15) was scored once with the engine of 0dfa539 (after the second
 * review's fixes), untuned: kind 37/39, exact numbers 43/46.
 * `blind44` (171 logs, rank-order, ninth session, eight collectors on families the corpus had little of: graph and
 * tabular GPU libraries (cuDF/RMM, CuPy, numba, Faiss), local-LLM apps (privateGPT, localGPT, gpt4all, ggml), compile
 * and kernel stacks (Triton, flash-attention, xformers, CUDA graphs), WSL/cloud/containers, vision models (SAM,
 * mmseg, YOLO), protein and science models (AlphaFold, ESMFold, Boltz, RFdiffusion), non-English queries, and RL/LLM
 * fine-tuning tools (verl, OpenRLHF, LLaMA-Factory)) was scored once with the engine of 1a13730, untuned: kind 136/171,
 * exact numbers 321/352.
 * `blind45` (128 logs, rank-order, ninth session, six collectors on robotics/RL (Isaac, MuJoCo, Ray), vision-language
 * models, LoRA/video trainers, quantizers and compilers (AWQ, GPTQ, MLC-LLM, TensorRT, onnxruntime), desktop LLM apps
 * (LM Studio, Jan, llamafile), and vision backbones) was scored once with the engine after blind44's classes (1701bf2),
 * untuned: kind 112/128, exact numbers 291/316.
 * `blind46` (126 logs, rank-order, ninth session, six collectors on edge devices (Jetson, TFLite, OpenVINO, Core ML),
 * model servers (Triton, Ray Serve, TorchServe, Gradio), distributed plumbing (shared memory, pin-memory threads, NCCL over
 * IB/EFA, gloo, containers), JAX/XLA, TensorFlow's data and Keras, and notebook kernels (Jupyter, Colab, Kaggle, Spark on
 * GPUs)) was scored once with the engine after blind45's classes and their review (27f2143), untuned: kind 102/126, exact
 * numbers 103/107.
 * `blind47` (99 logs, rank-order, ninth session, five collectors on queries of 2026: OOMs on RTX 5090/B200/GB10, NCCL and
 * launcher errors, vLLM/SGLang/llama.cpp serving, ROCm/XPU/Ascend/MPS, kills and segfaults) was scored once with the engine
 * after blind46's classes (68ce87a), untuned: kind 83/99, exact numbers 66/78.
 * `blind48` (47 logs, rank-order, ninth session, three collectors on the last of the search budget: CUDA/cuBLAS/cuDNN/NCCL/HIP
 * allocation statuses, host kills told by the kernel, Slurm and DataLoader, and CUDA look-alikes of 2025) was scored once with
 * the engine after blind47's classes (c806f69), untuned: kind 40/47, exact numbers 9/18.
 * `blind49` (17 logs, rank-order, ninth session, two collectors in the last minutes on mainstream PyTorch OOMs, segfaults and
 * CUDA errors) was scored once with the session's final engine (55e7b56, after every review), untuned: kind 15/17, exact
 * numbers 9/10; its floor is that first run.
 * `blind50` (150 logs, rank-order, tenth session, six collectors on the issue's own families: PyTorch CUDA OOMs of every era,
 * distributed failures, ROCm/XPU/Gaudi/NPU/MPS, JAX/TPU/TensorFlow, CUDA look-alikes, host kills and inference servers) was
 * scored once with the engine that gives a text it recognizes nothing in the no-failure verdict (6afeadc), untuned: kind
 * 139/150, exact numbers 139/159. Many of its logs are search excerpts cut before their failure line, labelled not-oom from
 * the text alone; without the no-failure verdict (26c5b37) the same run is kind 113/150.
 * `blind51` (150 logs, rank-order, tenth session, six collectors told to skip excerpts cut before their failure line: LLM and
 * diffusion OOMs of 2024-2026, PyTorch and CUDA OOMs of 2017-2021, distributed stalls and cascades, non-NVIDIA accelerators,
 * frameworks beyond PyTorch, crashes that may or may not be memory) was scored once with the engine after blind50's classes
 * (9d64d07), untuned: kind 131/150, exact numbers 123/152.
 * `blind52` (150 logs, rank-order, tenth session, six collectors, cut excerpts skipped: Chinese and Japanese threads, notebook
 * and Windows users, model servers of 2024-2026, training frameworks, scientific and RL workloads, stalls and kills outside
 * the usual messages) was scored once with the engine after blind51's classes (7bdc289), untuned: kind 124/150, exact
 * numbers 236/264.
 * `blind53` (150 logs, rank-order, tenth session, six collectors, cut excerpts skipped: vision OOMs of 2022-2023, set-up
 * failures that are not OOMs, audio and video generation, multi-GPU inference and sharding, Apple Silicon and CPU-only runs,
 * Ray/Dask/Spark/Kubernetes workloads) was scored once with the engine after blind52's classes (6273f78), untuned: kind
 * 121/150, exact numbers 253/269.
 * `blind54` (150 logs, rank-order, tenth session, six collectors, cut excerpts skipped: LLM post-training of 2025-2026, JAX
 * and TPU work, perception and medical imaging, GPU machine learning outside deep learning, compilers and kernels, edge
 * devices) was scored once with the engine after blind53's classes and the review's fixes (373a9b9), untuned: kind 133/150,
 * exact numbers 133/151.
 * `blind55` (150 logs, rank-order, tenth session, six collectors, cut excerpts skipped: PyTorch OOMs of 2024-2026 in LLM
 * fine-tuning, AMD GPUs of 2024-2026, multi-node communication failures, host and shared memory in data pipelines, Ascend
 * and Intel accelerators of 2025-2026, diffusion training and inference) was scored once with the engine after blind54's
 * classes (0026bee), untuned: kind 138/150, exact numbers 235/269.
 * `blind56` (150 logs, rank-order, tenth session, six collectors, cut excerpts skipped: PyTorch OOMs in research code of
 * 2019-2024, torchrun failure reports, Hugging Face Trainer crashes, vLLM and SGLang errors of every kind, consumer ML apps on
 * Windows and macOS, TensorFlow 2.x and Keras 3 GPU failures) was scored once with the engine after blind55's classes
 * (c9a226d), untuned: kind 143/150, exact numbers 171/200.
 * `blind57` (145 logs, rank-order, tenth session, six collectors on the last of the search budget, cut excerpts skipped:
 * multi-GPU runs with rank prefixes, AMD ROCm of 2021-2024, diffusers/transformers inference on small GPUs, notebook
 * environments, uncommon accelerators (Tenstorrent, AWS Neuron, Graphcore, MUSA), native crashes) was scored once with the
 * engine after blind56's classes (190c032), untuned: kind 136/145, exact numbers 152/162.
 * `blind58` (79 logs, rank-order, tenth session, four collectors on the last of the search budget, cut excerpts skipped, on
 * the most common messages: PyTorch OOMs of any year, distributed failures, host kills, CUDA look-alikes) was scored
 * once with the engine after blind57's classes and the needle fix (f12a69c), untuned: kind 73/79, exact numbers 80/90.
 * `blind59` (150 logs, rank-order, eleventh session, six collectors with a fresh search budget: training scripts of popular
 * model repositories, distributed launchers, inference servers and local runtimes, accelerators other than CUDA, host kills,
 * CUDA look-alikes) was scored once with the engine after the device/rank-from-line-format fallback (c1cace4), untuned:
 * kind 129/150, exact numbers 76/99. Four labels then moved to the corpus's conventions (shared-memory bus errors and Ray's
 * actor-dead report are not-oom): kind 133/150 with the same engine.
 * `blind60` (150 logs, rank-order, eleventh session, six collectors: research code, LLM fine-tuning and RL frameworks, Q&A
 * and forum threads, frameworks other than PyTorch, cluster schedulers and launchers, end-user AI applications) was scored
 * once with the engine after blind59's classes (5050248), untuned: kind 136/150, exact numbers 171/190.
 * `blind61` (150 logs, rank-order, eleventh session, six collectors: PyTorch OOMs of 2025-2026, multi-GPU communication
 * failures, AMD GPUs of 2024-2026, Apple Silicon and Intel GPUs, Windows and WSL2, Chinese/Japanese/Korean threads) was scored
 * once with the engine after blind60's classes (7ffdd8d), untuned: kind 140/150, exact numbers 103/107.
 * `blind62` (150 logs, rank-order, eleventh session, six collectors: image and video generation, data pipelines, speech and
 * small-GPU inference, notebooks, scientific computing on GPUs, model serving and cloud deployments) was scored once with the
 * engine after blind61's classes and the review's fixes (4a6b49d), untuned: kind 134/150, exact numbers 95/108. Two labels
 * then moved to the corpus's conventions (a shared-memory bus error and Ray's worker-died report are not-oom): 136/150.
 * `blind63` (150 logs, rank-order, eleventh session, six collectors: PyTorch 1.x-era failures in widely used repositories,
 * multi-rank logs, edge and embedded devices, robotics simulators, recommenders and graph learning, LLM quantization tools)
 * was scored once with the engine after blind62's classes (1840539), untuned: kind 135/150, exact numbers 156/172.
 * `blind64` (150 logs, rank-order, eleventh session, six collectors on the issue's own message families: PyTorch OOMs of any
 * era, cascades across ranks, TensorFlow/Keras/JAX, host kills, look-alikes, accelerators other than NVIDIA) was scored once
 * with the session's engine after blind63's classes (ae141e6), untuned: kind 137/150, exact numbers 128/143. Five labels then
 * moved to the corpus's conventions (four shared-memory bus errors and a notebook front end's kernel-died dialog are
 * not-oom): 142/150.
 * `blind65` (149 logs, rank-order, eleventh session, six collectors who also had the corpus's label conventions
 * (test/fixtures/logs/CONVENTIONS.md): the Hugging Face ecosystem, cluster and distributed output, computer vision, LLM
 * serving, runs not on PyTorch-with-NVIDIA, host memory and notebooks) was scored once with the session's final engine
 * (c4c2961, after the second review), untuned: kind 141/149, exact numbers 100/115.
 * `blind66` (125 logs, rank-order, eleventh session, five collectors with the conventions on the last of the search budget:
 * mid-sized PyTorch repositories, multi-process failures and host kills, inference apps and servers, non-NVIDIA and
 * non-PyTorch runs, native crashes and GPU errors) was scored once with the session's final engine after blind65's classes
 * (ea042bf), untuned: kind 122/125, exact numbers 84/96.
 * `blind67` (150 logs, rank-order, twelfth session, six collectors with the conventions and a fresh search budget: research
 * and fine-tuning repositories, multi-GPU and multi-node runs, inference servers and local apps, accelerators other than
 * NVIDIA, host memory and look-alikes, frameworks other than PyTorch) was scored once with the session's engine after its
 * first-run numbers classes (5d9f73d), untuned: kind 140/150, exact numbers 52/67.
 * `blind68` (150 logs, rank-order, twelfth session, six collectors with the conventions, from blind68 on including the user
 * frame in a cloned checkout and catchable on not-oom logs: LLM training frameworks, threads in Chinese, Japanese and Korean,
 * 2025-2026 hardware and software, scientific and robotics GPU computing, where runs run (Windows, WSL2, containers, notebooks,
 * managed jobs, HPC schedulers), generative media and audio) was scored once with the session's engine after blind67's
 * classes (2ee87c4), untuned: kind 143/150, exact numbers 119/141.
 * `blind69` (150 logs, rank-order, twelfth session, six collectors with the conventions: computer vision repositories, local
 * language-model applications and libraries, the PyTorch project's trackers, JAX/TPU/TensorFlow, Apple/AMD/Intel consumer
 * GPUs, RL/recommenders/tabular/data engineering) was scored once with the session's engine after blind68's classes
 * (139ef00), untuned: kind 144/150, exact numbers 125/140. Two labels then moved to the corpus's conventions (transformers'
 * offload_folder ValueError is catchable-oom): 146/150.
 * `blind70` (150 logs, rank-order, twelfth session, six collectors with the conventions: the PyTorch 1.x era in research
 * repositories, cluster and multi-node operations, edge and embedded inference, learners' threads and forums, model serving
 * platforms, machine learning for science) was scored once with the session's engine after blind69's classes (9764ac2),
 * untuned: kind 144/150, exact numbers 113/119. One label then moved to the guide's fragmentation rule: 145/150.
 * `blind71` (150 logs, rank-order, twelfth session, six collectors with the conventions, general queries: out-of-memory
 * reports of 2019-2020, 2021-2022, 2023-2024 and 2025-2026, crashes of any kind, kills and hangs) was scored once with the
 * session's engine after blind70's classes (a07af0d), untuned: kind 143/150, exact numbers 151/166.
 * `blind72` (150 logs, rank-order, twelfth session, six collectors with the conventions: research papers' code releases,
 * robotics and embodied AI, vision-language models, OCR and document AI, model compression, GPU kernels and compilers) was
 * scored once with the session's engine after blind71's classes (786b54e), untuned: kind 145/150, exact numbers 153/163.
 * `blind73` (150 logs, rank-order, twelfth session, six collectors with the conventions: the Hugging Face libraries' own
 * trackers, large-model training infrastructure, the most-used local AI apps, threads in languages other than English and
 * Chinese, data loading and preprocessing, evaluation and batch inference) was scored once with the session's engine after
 * the review's fixes (9422107), untuned: kind 137/150, exact numbers 110/120.
 * `blind74` (90 logs, rank-order, twelfth session, five collectors with the conventions on the issue's own families: PyTorch's
 * OOM messages, multi-GPU failures, non-NVIDIA accelerators, host kills and look-alikes, other frameworks and apps; three ran
 * short of their quota of 20, the index being exhausted for them) was scored once with the session's final engine
 * (4470066), untuned: kind 87/90, exact numbers 139/154.
 */
const FLOORS = {
  train: { kind: 1, exact: 1 },
  holdout: { kind: 41 / 41, exact: 1 },
  blind: { kind: 1, exact: 1 },
  blind2: { kind: 1, exact: 1 },
  blind3: { kind: 1, exact: 1 },
  blind4: { kind: 1, exact: 1 },
  blind5: { kind: 1, exact: 1 },
  blind6: { kind: 1, exact: 1 },
  // Not tuned: its first run is the floor.
  blind7: { kind: 22 / 22, exact: 1 },
  blind8: { kind: 1, exact: 1 },
  blind9: { kind: 112 / 112, exact: 1 },
  blind10: { kind: 1, exact: 1 },
  blind11: { kind: 111 / 112, exact: 102 / 108 },
  // First run kind 89/104, exact 198/213; after its classes were filled:
  blind12: { kind: 104 / 104, exact: 210 / 213 },
  // Not tuned: its first run (the engine after blind12's classes) is the floor.
  blind13: { kind: 95 / 96, exact: 122 / 126 },
  // First run kind 68/95, exact 52/68; after its classes were filled: kind 91/95, exact 67/68.
  blind14: { kind: 95 / 95, exact: 67 / 68 },
  // First run kind 77/96, exact 83/92; after its classes were filled: kind 89/96, exact 87/92; 90/96 after the
  // fifth session's per-allocation-limit convention (TRIAGE.md).
  blind15: { kind: 93 / 96, exact: 88 / 92 },
  // First run kind 75/96, exact 90/98; after its classes were filled: kind 94/96, exact 98/98.
  blind16: { kind: 96 / 96, exact: 98 / 98 },
  // First run kind 64/92, exact 108/117; after its classes were filled: kind 79/92, exact 115/117.
  blind17: { kind: 86 / 92, exact: 115 / 117 },
  // First run kind 53/75, exact 61/74; after its classes were filled: kind 70/75, exact 70/74; 71/75 and 72/74
  // after the per-allocation-limit convention.
  blind18: { kind: 73 / 75, exact: 72 / 74 },
  // First run kind 73/96, exact 89/97; after its classes were filled: kind 92/96, exact 96/97; 95/96 after the
  // per-allocation-limit convention.
  blind19: { kind: 96 / 96, exact: 96 / 97 },
  // First run kind 75/96, exact 91/94; after its classes were filled: kind 91/96, exact 94/94.
  blind20: { kind: 96 / 96, exact: 94 / 94 },
  // First run kind 76/96, exact 57/70; after its classes were filled: kind 94/96, exact 70/70.
  blind21: { kind: 96 / 96, exact: 70 / 70 },
  // First run kind 75/95, exact 89/99; after its classes were filled: kind 87/95, exact 94/99.
  blind22: { kind: 94 / 95, exact: 95 / 99 },
  // First run kind 86/93, exact 137/147; after its classes were filled: kind 92/93, exact 147/147.
  blind23: { kind: 92 / 93, exact: 147 / 147 },
  // First run kind 81/92, exact 152/160; after its classes were filled: kind 91/92, exact 160/160.
  blind24: { kind: 91 / 92, exact: 160 / 160 },
  blind25: { kind: 93 / 95, exact: 126 / 132 },
  blind26: { kind: 84 / 85, exact: 148 / 150 },
  blind27: { kind: 92 / 96, exact: 118 / 118 },
  blind28: { kind: 86 / 87, exact: 103 / 106 },
  blind29: { kind: 85 / 86, exact: 136 / 136 },
  // First run kind 68/72, exact 50/55; after its classes were filled: kind 72/72, exact 52/55.
  blind30: { kind: 72 / 72, exact: 52 / 55 },
  // First run kind 76/88, exact 145/163; after its classes were filled: kind 86/88, exact 146/163.
  blind31: { kind: 87 / 88, exact: 146 / 163 },
  // First run kind 85/95, exact 120/141; after its classes were filled: kind 93/95, exact 131/141.
  blind32: { kind: 94 / 95, exact: 132 / 141 },
  // First run kind 82/86, exact 167/173; after its classes were filled: kind 84/86, exact 169/173.
  blind33: { kind: 85 / 86, exact: 169 / 173 },
  // First run kind 71/84, exact 95/104; after its classes were filled: kind 79/84, exact 102/104.
  blind34: { kind: 81 / 84, exact: 102 / 104 },
  // First run kind 81/91, exact 97/113; after its classes were filled: kind 85/91, exact 98/113.
  blind35: { kind: 87 / 91, exact: 101 / 113 },
  blind36: { kind: 28 / 28, exact: 54 / 56 },
  // First run kind 78/90, exact 124/131; after its classes were filled: kind 85/90, exact 128/131.
  blind37: { kind: 87 / 90, exact: 128 / 131 },
  // First run kind 66/73, exact 88/97; after its classes were filled: kind 68/73, exact 95/97.
  blind38: { kind: 73 / 73, exact: 95 / 97 },
  // First run kind 62/69, exact 83/99; after its classes were filled: kind 67/69, exact 93/99.
  blind39: { kind: 67 / 69, exact: 95 / 99 },
  // First run kind 85/95, exact 304/309; after its classes were filled: kind 91/95, exact 307/309.
  blind40: { kind: 91 / 95, exact: 307 / 309 },
  // First run kind 95/96, exact 365/376; after its class was filled: kind 95/96, exact 366/376.
  blind41: { kind: 95 / 96, exact: 367 / 376 },
  // First run kind 73/86, exact 136/141; after one class was filled: kind 74/86.
  blind42: { kind: 84 / 86, exact: 136 / 141 },
  blind43: { kind: 37 / 39, exact: 43 / 46 },
  // First run kind 136/171, exact 321/352; after its classes were filled (triage-blind44.test.ts): kind 161/171, exact 347/352;
  // after a review of those classes, 160/171 (a failure stated at the end again outranks a skipped batch, as it should).
  blind44: { kind: 165 / 171, exact: 347 / 352 },
  // First run kind 112/128, exact 291/316; after its classes were filled (triage-blind45.test.ts): kind 123/128, exact 304/316.
  blind45: { kind: 123 / 128, exact: 304 / 316 },
  // First run kind 102/126, exact 103/107; after its classes were filled (triage-blind46.test.ts): kind 113/126, exact 104/107.
  blind46: { kind: 124 / 126, exact: 104 / 107 },
  // First run kind 83/99, exact 66/78; after its classes were filled (triage-blind47.test.ts): kind 89/99, exact 75/78.
  blind47: { kind: 94 / 99, exact: 75 / 78 },
  // First run kind 40/47, exact 9/18; after its classes were filled (triage-blind48.test.ts): kind 45/47, exact 16/18.
  blind48: { kind: 47 / 47, exact: 17 / 18 },
  blind49: { kind: 15 / 17, exact: 9 / 10 },
  // First run kind 139/150, exact 139/159; after its classes were filled (triage-blind50.test.ts): kind 148/150, exact 148/159.
  blind50: { kind: 149 / 150, exact: 149 / 159 },
  // First run kind 131/150, exact 123/152; after its classes were filled (triage-blind51.test.ts): kind 148/150, exact 136/152.
  blind51: { kind: 148 / 150, exact: 140 / 152 },
  // First run kind 124/150, exact 236/264; after its classes were filled (triage-blind52.test.ts): kind 142/150, exact 244/264.
  blind52: { kind: 143 / 150, exact: 247 / 264 },
  // First run kind 121/150, exact 253/269; after its classes were filled (triage-blind53.test.ts): kind 147/150, exact 256/269.
  blind53: { kind: 147 / 150, exact: 263 / 269 },
  // First run kind 133/150, exact 133/151; after its classes were filled (triage-blind54.test.ts): kind 148/150, exact 139/151.
  blind54: { kind: 148 / 150, exact: 139 / 151 },
  // First run kind 138/150, exact 235/269; after its classes were filled (triage-blind55.test.ts): kind 146/150, exact 238/269.
  blind55: { kind: 147 / 150, exact: 238 / 269 },
  // First run kind 143/150, exact 171/200; after its classes were filled (triage-blind56.test.ts): kind 147/150, exact 181/200.
  blind56: { kind: 147 / 150, exact: 185 / 200 },
  // First run kind 136/145, exact 152/162; after its classes were filled (triage-blind57.test.ts): kind 141/145, exact 153/162.
  blind57: { kind: 142 / 145, exact: 155 / 162 },
  blind58: { kind: 75 / 79, exact: 84 / 90 },
  // First run kind 129/150 (133/150 after four labels moved to the corpus's conventions), exact 76/99; after its classes were
  // filled (triage-blind59.test.ts): kind 143/150, exact 89/99.
  blind59: { kind: 143 / 150, exact: 89 / 99 },
  // First run kind 136/150, exact 171/190; after its classes were filled (triage-blind60.test.ts): kind 145/150, exact 172/190.
  blind60: { kind: 145 / 150, exact: 177 / 190 },
  // First run kind 140/150, exact 103/107; after its classes were filled (triage-blind61.test.ts): kind 147/150, exact 103/107.
  blind61: { kind: 148 / 150, exact: 104 / 107 },
  // First run kind 134/150 (136/150 after two labels moved to the corpus's conventions), exact 95/108; after its classes were
  // filled (triage-blind62.test.ts): kind 146/150, exact 99/108.
  blind62: { kind: 146 / 150, exact: 101 / 108 },
  // First run kind 135/150, exact 156/172; after its classes were filled (triage-blind63.test.ts): kind 143/150, exact 158/172;
  // with the devices around a failure (evidencePlace.ts) 160/172.
  blind63: { kind: 143 / 150, exact: 162 / 172 },
  // First run kind 137/150 (142/150 after five labels moved to the corpus's conventions), exact 128/143; after its classes
  // were filled (triage-blind64.test.ts): kind 147/150, exact 129/143; with the devices around a failure 131/143.
  blind64: { kind: 147 / 150, exact: 136 / 143 },
  // First run kind 141/149, exact 100/115; after its classes were filled (triage-blind65.test.ts): kind 147/149, exact 102/115;
  // with the devices around a failure 103/115.
  blind65: { kind: 147 / 149, exact: 103 / 115 },
  // First run kind 122/125, exact 84/96; after its class was filled (triage-blind66.test.ts): kind 124/125, exact 84/96; with
  // the devices around a failure 85/96.
  blind66: { kind: 124 / 125, exact: 86 / 96 },
  // First run kind 140/150, exact 52/67; after its classes were filled (triage-blind67.test.ts): kind 146/150, exact 58/67.
  blind67: { kind: 146 / 150, exact: 58 / 67 },
  // First run kind 143/150, exact 119/141; after its classes were filled (triage-blind68.test.ts): kind 148/150, exact 126/141.
  blind68: { kind: 148 / 150, exact: 126 / 141 },
  // First run kind 144/150 (146/150 after two labels moved to the corpus's conventions), exact 125/140; after its classes were
  // filled (triage-blind69.test.ts): kind 150/150, exact 131/140.
  blind69: { kind: 150 / 150, exact: 132 / 140 },
  // First run kind 144/150 (145/150 after one label moved to the guide's fragmentation rule), exact 113/119; after its classes
  // were filled (triage-blind70.test.ts): kind 148/150, exact 116/119.
  blind70: { kind: 148 / 150, exact: 116 / 119 },
  // First run kind 143/150, exact 151/166; after its classes were filled (triage-blind71.test.ts): kind 147/150, exact 154/166.
  blind71: { kind: 147 / 150, exact: 154 / 166 },
  // First run kind 145/150, exact 153/163; after its classes were filled (triage-blind72.test.ts): kind 150/150, exact 157/163.
  blind72: { kind: 150 / 150, exact: 157 / 163 },
  // First run kind 137/150, exact 110/120; after its classes were filled (triage-blind73.test.ts): kind 143/150, exact 110/120.
  blind73: { kind: 143 / 150, exact: 110 / 120 },
  // First run kind 87/90, exact 139/154; after its class was filled (triage-blind74.test.ts): kind 88/90, exact 140/154.
  blind74: { kind: 88 / 90, exact: 140 / 154 },
};

describe('triage accuracy on the labelled corpus', () => {
  const corpus = loadCorpus();

  it('has at least 60 logs across every platform and kind', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
    expect(new Set(corpus.map((e) => e.platform))).toEqual(new Set(['cuda', 'rocm', 'xla-tpu', 'mps', 'xpu', 'gaudi', 'npu', 'cpu']));
    expect(new Set(corpus.map((e) => e.kind))).toEqual(
      new Set(['catchable-oom', 'fragmentation', 'runtime-abort', 'collective-oom', 'hang', 'host-oom', 'not-oom']),
    );
    for (const entry of corpus) expect(entry.sourceUrl).toMatch(/^https?:\/\//);
  });

  it('has a floor for every set in the corpus', () => {
    expect(splitsOf(corpus)).toEqual(Object.keys(FLOORS));
  });

  for (const split of Object.keys(FLOORS) as (keyof typeof FLOORS)[]) {
    it(`keeps kind and exact-number accuracy on the ${split} logs`, async () => {
      const score = await scoreCorpus(corpus.filter((e) => splitOf(e) === split));
      const report = score.misses.join('\n');
      expect(ratio(score.kind), report).toBeGreaterThanOrEqual(FLOORS[split].kind);
      expect(ratio(score.exact), report).toBeGreaterThanOrEqual(FLOORS[split].exact);
    });
  }
});
