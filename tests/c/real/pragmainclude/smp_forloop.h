/* hypre's idiom (AMG2013 utilities/hypre_smp_forloop.h): the pragma of the loop after the include. */
#pragma omp parallel for private(SMP_PRIVATE) schedule(static)
#undef SMP_PRIVATE
