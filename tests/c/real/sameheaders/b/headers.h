/* b's own headers.h: a/ has another of the same name. */
typedef long b_int;
#define KERNEL b_every
#define STRIDE 3
