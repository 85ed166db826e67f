// Golden input for npu-cc's rewrite (tools/npucc-check): launches K<<<>>>
// in the places the rewrite must find them, and "K<<<x>>>" in places it must not.
#include <vector>
#define NOT_A_LAUNCH "K<<<1, 2, 3>>>()"
/* a comment: K<<<1, nullptr, s>>>(x) stays as it is */
extern "C" __global__ __aicore__ void K(int *x, float a);
extern "C" __global__ __aicore__ void K(int *x, float a) { x[0] = (int)a; }
extern "C" {
__global__ __aicore__ void L(void) {}
}
namespace ns {
void host(int *x, void *s);
}
std::vector<std::vector<int>> nested_templates;
std::vector<std::vector<std::vector<int>>> triple; // '>>>' outside a launch is no launch
int f(int a, int b);

void host(int *x, void *s, int n)
{
    const char *str = "K<<<1, nullptr, s>>>(x)"; // K<<<a, b, c>>>() in a line comment
    const char *raw = R"npu(L<<<1, nullptr, s>>>() "quoted" )npu";
    char c = '<';
    (void)str, (void)raw, (void)c;
    K<<<1, nullptr, s>>>(x, 1.0f);
    K<<<f(n, 2), nullptr, (s)>>>(x, (float)f(n, (3)));
    ::K<<<n >> 1, nullptr, s>>>(x, 2.0f);
    int r = static_cast<int32_t>(K<<<n,
                                    nullptr,
                                    s>>>(x, 3.0f));
    if (n) { L<<<8, nullptr, s>>>(); }
    K<<<static_cast<uint32_t>(n), nullptr, s>>>(x, (float)std::vector<std::vector<int>>().size());
    auto lambda = [&]() { return ns::sub::K<<<1, nullptr, s>>>(x, 0.0f); };
    ns::host(x, s);
    (void)r, (void)lambda;
}
