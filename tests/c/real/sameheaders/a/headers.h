/* a's own headers.h: b/ has another of the same name (hypre's AMG2013: every folder has one). */
typedef double a_real;
#define KERNEL a_scale
#define STRIDE 1
