template <class T>
__global__ void K(T *x) { x[0] = 1; }
