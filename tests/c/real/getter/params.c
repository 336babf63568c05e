/* One helper reads every integer option, in another file (UoB-HPC arch's params.c, reduced: its
   get_int_parameter(key, file) finds the key's line and sscanf's the number from it). */
#include <stdio.h>
#include <stdlib.h>
#include "params.h"

int get_int_parameter(const char *text)
{
    int value;
    if (text == NULL)
        return -1;
    sscanf(text, "%d", &value);
    return value;
}
