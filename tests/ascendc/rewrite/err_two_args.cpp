void host(int *x, void *s)
{
    K<<<1, s>>>(x);
}
