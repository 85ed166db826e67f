void host(int *x, void *s)
{
    K<<<1, nullptr, s>>(x);
}
