void host(void *s)
{
    auto r = K<<<1, nullptr, s>>>;
}
