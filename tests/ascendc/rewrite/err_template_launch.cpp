template <class T> void K(T *x);
void host(int *x, void *s)
{
    K<int><<<1, nullptr, s>>>(x);
}
