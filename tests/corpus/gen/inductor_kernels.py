# Small models and functions compiled with torch.compile (inductor), whose Triton kernels are
# collected from TRITON_CACHE_DIR as a held-back set of real-world PTX (see validate_check.py).
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
dev = "cuda"
def run(name, fn, *args):
    try:
        c = torch.compile(fn)
        c(*args); torch.cuda.synchronize(); print("ok", name)
    except Exception as e:
        print("FAIL", name, type(e).__name__, str(e)[:200])
x = torch.randn(256, 512, device=dev)
y = torch.randn(512, 256, device=dev)
h = x.half(); b = x.bfloat16()
run("gelu_tanh", lambda t: F.gelu(t, approximate="tanh") * 2 + 1, x)
run("softmax", lambda t: torch.softmax(t, -1), x)
run("logsoftmax_half", lambda t: torch.log_softmax(t, -1), h)
run("layernorm", lambda t: F.layer_norm(t, (512,)), x)
run("rmsnorm_bf16", lambda t: t * torch.rsqrt(t.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(t.dtype), b)
run("sum_max", lambda t: (t.sum(0), t.amax(1), t.argmax(1)), x)
run("cumsum", lambda t: torch.cumsum(t, 1), x)
run("sort", lambda t: torch.sort(t, 1)[0], x)
run("dropout", lambda t: F.dropout(t, 0.1, training=True), x)
run("mm_relu", lambda a, c: torch.relu(a @ c), x, y)
run("mm_half", lambda a, c: a @ c, h, y.half())
run("bmm_bf16", lambda a, c: torch.bmm(a, c), b.view(4, 64, 512), y.bfloat16().view(1, 512, 256).expand(4, 512, 256).contiguous())
run("int_ops", lambda t: ((t * 100).int() >> 3) ^ 0x55, x)
run("where_clamp", lambda t: torch.where(t > 0, t.clamp(max=1.0), t.exp()), x)
run("attention", lambda q, k, v: F.scaled_dot_product_attention(q, k, v), h.view(2, 4, 32, 512)[..., :64].contiguous(), h.view(2, 4, 32, 512)[..., 64:128].contiguous(), h.view(2, 4, 32, 512)[..., 128:192].contiguous())
m = nn.Sequential(nn.Linear(512, 1024), nn.SiLU(), nn.Linear(1024, 512), nn.LayerNorm(512)).to(dev)
run("mlp", m, x)
conv = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2)).to(dev).eval()
run("conv_bn", conv, torch.randn(2, 3, 32, 32, device=dev))
emb = nn.Embedding(1000, 64).to(dev)
run("embedding_bag", lambda i: emb(i).mean(1), torch.randint(0, 1000, (32, 16), device=dev))
run("fp8_cast", lambda t: (t.to(torch.float8_e4m3fn).float() * 2).to(torch.float8_e5m2).float(), x)
run("topk", lambda t: torch.topk(t, 8, dim=1).values, x)
run("scatter_add", lambda t, i: torch.zeros(64, 512, device=dev).index_add_(0, i, t), x, torch.randint(0, 64, (256,), device=dev))
