"""The seeded workload generator: for a command, a model and an accelerator, flags drawn from the
ranges a sizing question asks over (batches 1 to 8,192, contexts 0 to 10^6, every data type and
weight format, reserves, efficiencies, layouts that divide the model, ZeRO stages, recomputation,
LoRA, ...). Every draw comes from the caller's random.Random, so a seed gives the same plans."""
from propkit import Plan, deck, log_uniform_int

DTYPES = ["bf16", "bf16", "bf16", "fp16", "fp8", "int8", "int4", "fp32"]
KV_DTYPES = ["bf16", "bf16", "fp16", "fp8", "int8", "fp32"]
WEIGHT_FORMATS = ["q4_0", "q4_k", "q5_k", "q6_k", "q8_0", "int4-g128", "int4-g64", "int4-g32", "int8-g128", "4.125",
                  "3.5", "6"]
OPTIMIZERS = ["mixed-adam", "mixed-adam", "mixed-adam-fp32-grads", "bf16-adam-fp32-master", "bf16-adam", "adam-8bit",
              "adam-8bit-no-master", "sgd-momentum", "adafactor"]
MODEL_COMMANDS = ["report", "params", "flops", "kv", "memory", "decode", "prefill", "serve", "layer", "train", "plan"]
GPU_COMMANDS = {"report", "memory", "decode", "prefill", "serve", "layer", "train", "plan"}
LAYOUT_COMMANDS = {"memory", "decode", "serve"}


class Generator:
    def __init__(self, rng, catalogue):
        self.rng = rng
        self.cat = catalogue
        self._models = deck(rng, catalogue.model_names)
        self._gpus = deck(rng, catalogue.gpu_names)

    def model(self):
        return next(self._models)

    def gpu(self):
        return next(self._gpus)

    def chance(self, p):
        return self.rng.random() < p

    # -- single values ------------------------------------------------------------------------

    def batch(self):
        return log_uniform_int(self.rng, 1, 8192) if self.chance(0.7) else self.rng.choice([1, 8, 32, 64])

    def context(self):
        if self.chance(0.08):
            return 0
        return log_uniform_int(self.rng, 1, 1_000_000)

    def prompt(self):
        return log_uniform_int(self.rng, 1, 131_072)

    def output(self):
        return 1 if self.chance(0.05) else log_uniform_int(self.rng, 1, 32_768)

    def reserve(self):
        if self.chance(0.5):
            return f"{self.rng.choice([1, 2, 5, 10, 20])}%"
        return self.rng.choice(["512MiB", "1GiB", "2GiB", "3GB", "8GiB"])

    def fraction(self):
        return round(self.rng.uniform(0.2, 1.0), 3)

    def weights(self, plan):
        """A weight type: a data type or a named group-quantized format."""
        if self.chance(0.2):
            return plan.with_flags(("weight-bits", self.rng.choice(WEIGHT_FORMATS)))
        dtype = self.rng.choice(DTYPES)
        return plan if dtype == "bf16" and self.chance(0.5) else plan.with_flags(("dtype", dtype))

    def layout(self, model, plan):
        """A serving layout t x p (x d) that divides the model, sometimes with EP for an MoE model."""
        t = self.rng.choice(self.cat.heads_split(model))
        p = self.rng.choice(self.cat.stages(model, 4))
        d = self.rng.choice([1, 1, 2])
        plan = plan.with_flags(("tp", t))
        if p > 1:
            plan = plan.with_flags(("pp", p))
            if self.chance(0.3):
                plan = plan.with_flags(("micro-batches", self.rng.choice([1, p])))
        if d > 1:
            plan = plan.with_flags(("dp", d))
        experts = self.cat.models[model]["experts"]
        if experts and self.chance(0.3):
            e = self.rng.choice([x for x in (1, 2, 4, 8) if experts % x == 0 and (t * d) % x == 0] or [1])
            plan = plan.with_flags(("ep", e))
        if self.chance(0.2):
            plan = plan.with_flags(("link-latency", self.rng.choice(["0", "1us", "5us"])))
        if self.chance(0.2):
            plan = plan.with_flags(("link-efficiency", self.fraction()))
        return plan

    # -- one command ----------------------------------------------------------------------------

    def plan(self, command, model=None, gpu=None, layout=None):
        """A random plan for the command. `layout` None draws whether a serving layout is used."""
        model = model or self.model()
        gpu = gpu or self.gpu()
        rng = self.rng
        p = Plan(command, model)
        if command == "params":
            return self.weights(p)
        if command == "flops":
            p = p.with_flags(("context", self.context()))
            if self.chance(0.5):
                p = p.with_flags(("prompt", self.prompt()))
            if self.chance(0.3):
                p = p.with_flags(("flops-basis", rng.choice(["physical", "non-embedding", "all-params"])))
            if self.chance(0.2):
                p = p.with_flags(("attention", rng.choice(["causal", "full"])))
            return p
        if command == "kv":
            return p.with_flags(("context", self.context()), ("batch", self.batch()),
                                ("kv-dtype", rng.choice(KV_DTYPES)))
        if command == "train":
            return self.train(model, gpu)
        if command == "plan":
            return self.capacity_plan(model, gpu)
        if command == "report" and self.chance(0.2):
            return self.weights(p.with_flags(("context", self.context())))
        p = p.with_flags(("gpu", gpu))
        if command == "layer":
            return self.layer(p)
        if command in ("memory", "decode", "report") or (command == "serve" and self.chance(0.3)):
            p = p.with_flags(("batch", self.batch()))
        if command in ("memory", "decode", "report"):
            p = p.with_flags(("context", self.context()))
        if command in ("prefill", "report", "serve"):
            p = p.with_flags(("prompt", self.prompt()))
            if command == "prefill" and self.chance(0.5):
                p = p.with_flags(("batch", self.batch()))
        if command == "serve":
            p = p.with_flags(("output", self.output()))
        p = self.weights(p)
        if self.chance(0.5):
            p = p.with_flags(("kv-dtype", rng.choice(KV_DTYPES)))
        if self.chance(0.3):
            p = p.with_flags(("reserve", self.reserve()))
        if command != "memory":
            if self.chance(0.25):
                p = p.with_flags(("bw-efficiency", self.fraction()))
            if self.chance(0.25):
                p = p.with_flags(("mfu", self.fraction()))
        use_layout = (command in LAYOUT_COMMANDS and self.chance(0.35)) if layout is None else layout
        if use_layout and command in LAYOUT_COMMANDS:
            p = self.layout(model, p)
        elif self.chance(0.25):
            p = p.with_flags(("gpus", rng.choice([2, 4, 8])))
        if command == "serve":
            p = self.serving(p)
        if command in ("decode", "serve") and self.chance(0.12):
            draft = "mtp" if self.cat.models[model]["mtp"] and self.chance(0.5) else \
                rng.choice(["llama3.2-1b", "qwen2.5-0.5b", "gpt2", "qwen3-0.6b"])
            p = p.with_flags(("draft", draft))
            if self.chance(0.5):
                p = p.with_flags(("acceptance", self.fraction()))
            if self.chance(0.3):
                p = p.with_flags(("draft-len", rng.choice([1, 2, 3, 4, 8])))
        if command in ("decode", "serve", "report") and self.chance(0.15):
            p = p.with_flags(("decode-bytes", rng.choice(["touched", "all-weights"])))
        if command in ("decode", "serve", "report", "prefill") and self.cat.models[model]["experts"] and self.chance(0.3):
            p = p.with_flags(("moe-decode", rng.choice(["expected", "all-experts", "top-k"])))
        return p

    def serving(self, p):
        rng = self.rng
        if self.chance(0.3):
            p = p.with_flags(("concurrency", log_uniform_int(rng, 1, 2048)))
        if self.chance(0.3):
            p = p.with_flags(("kv-block", rng.choice([1, 16, 32, 256])))
        prompt = p.get("prompt")
        if prompt and prompt > 1 and self.chance(0.2):
            p = p.with_flags(("shared-prefix", rng.randint(1, prompt - 1)))
        if self.chance(0.3):
            p = p.with_flags(("tpot", rng.choice(["10ms", "20ms", "50ms", "200ms"])))
        if self.chance(0.2):
            p = p.with_flags(("ttft", rng.choice(["100ms", "1s", "10s"])))
        return p

    def layer(self, p):
        rng = self.rng
        if self.chance(0.5):
            p = p.with_flags(("phase", "prefill"), ("prompt", self.prompt()))
            if self.chance(0.3):
                p = p.with_flags(("lm-head", rng.choice(["last", "all"])))
            if self.chance(0.2):
                p = p.with_flags(("attention", rng.choice(["causal", "full"])))
        else:
            if self.chance(0.3):
                p = p.with_flags(("phase", "decode"))
            p = p.with_flags(("context", self.context()))
        p = p.with_flags(("batch", self.batch()))
        if self.chance(0.4):
            p = p.with_flags(("fused", None))
        p = self.weights(p)
        if self.chance(0.4):
            p = p.with_flags(("kv-dtype", rng.choice(KV_DTYPES)))
        if self.chance(0.2):
            p = p.with_flags(("gpus", rng.choice([2, 4])))
        if self.chance(0.2):
            p = p.with_flags(("mfu", self.fraction()))
        return p

    def capacity_plan(self, model, gpu):
        rng = self.rng
        gpus = gpu if self.chance(0.6) else ",".join(dict.fromkeys([gpu, self.gpu()]))
        p = Plan("plan", model, [("gpu", gpus), ("users", log_uniform_int(rng, 1, 100_000)),
                                 ("tokens-per-s", rng.choice([5, 10, 20, 30, 50]))])
        if self.chance(0.5):
            p = p.with_flags(("context", log_uniform_int(rng, 1, 131_072)))
        if self.chance(0.3):
            p = p.with_flags(("tpot", rng.choice(["20ms", "50ms", "100ms"])))
        if self.chance(0.3):
            p = p.with_flags(("price", rng.choice([1, 2.5, 4])))
        return self.weights(p)

    def train(self, model, gpu):
        """A training run on a layout t x p x d that divides the model."""
        rng = self.rng
        cat = self.cat
        t = rng.choice(cat.heads_split(model))
        pp = rng.choice(cat.stages(model, 8))
        d = rng.choice([1, 1, 2, 4, 8, 16])
        p = Plan("train", model, [("gpu", gpu), ("gpus", t * pp * d)])
        if t > 1 or self.chance(0.3):
            p = p.with_flags(("tp", t))
        if pp > 1 or self.chance(0.2):
            p = p.with_flags(("pp", pp))
        if self.chance(0.7):
            p = p.with_flags(("zero", rng.choice([0, 1, 2, 3])))
        if self.chance(0.6):
            p = p.with_flags(("seq", log_uniform_int(rng, 128, 32_768)))
        if self.chance(0.4):
            p = p.with_flags(("micro-batch", rng.choice([1, 2, 4, 8])))
        if self.chance(0.4):
            m = rng.choice([1, 2, 4, 8, 16])
            p = p.with_flags(("grad-accum", m * pp if pp > 1 else m))
        if self.chance(0.5):
            mode = rng.choice(["none", "selective", "full"])
            p = p.with_flags(("recompute", mode))
            if mode == "full" and self.chance(0.3):
                p = p.with_flags(("recompute-every", rng.choice([1, 2])))
        if self.chance(0.3):
            p = p.with_flags(("optimizer", rng.choice(OPTIMIZERS)))
        if t > 1 and self.chance(0.3):
            p = p.with_flags(("sp", None))
        experts = cat.models[model]["experts"]
        if experts and self.chance(0.3):
            e = rng.choice([x for x in (1, 2, 4, 8) if experts % x == 0 and (t * d) % x == 0] or [1])
            p = p.with_flags(("ep", e))
        if self.chance(0.1):
            p = p.with_flags(("lora", rng.choice([8, 16, 64])))
        elif self.chance(0.05):
            p = p.with_flags(("qlora", None))
        if self.chance(0.3):
            p = p.with_flags(("reserve", self.reserve()))
        if self.chance(0.3):
            p = p.with_flags(("mfu", self.fraction()))
        if self.chance(0.4):
            p = p.with_flags(("tokens", rng.choice(["1B", "100B", "1T", "15T"])))
            if self.chance(0.5):
                p = p.with_flags(("price", rng.choice([1, 2, 2.5])))
        if self.chance(0.1):
            p = p.with_flags(("dropout", None))
        if self.chance(0.1):
            p = p.with_flags(("no-flash-attention", None))
        return p
