void init(double *a, int n);
double solve(double *a, int n, int rank, int size);
void fail(const char *msg);
