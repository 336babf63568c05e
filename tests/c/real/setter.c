/* Sizes kept in a global options struct by setter functions that get the number converted from the
 * command line (OSU's micro-benchmarks: set_num_iterations(atoi(optarg)) stores options.loop and
 * options.loop_large), and an iteration count switched inside the message-size loop
 * (options.loop = options.loop_large above a size).  Nothing recorded the fields, so the model had
 * no parameter (-86 % at 8x) and --param could not name one. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct options_t {
    int loop, loop_large, skip, skip_large;
} options;

static int set_num_iterations(int value)
{
    if (value < 1)
        return -1;
    options.loop = value;
    options.loop_large = value / 2;
    return 0;
}

static void set_warmup(int value) { options.skip = value; }

double a[64];

int main(int argc, char **argv)
{
    int c;
    options.skip = 10;
    options.skip_large = 10;
    while ((c = getopt(argc, argv, "i:x:")) != -1) {
        if (c == 'i' && set_num_iterations(atoi(optarg)))
            return 1;
        if (c == 'x')
            set_warmup(atoi(optarg));
    }
    double s = 0;
    for (int size = 1; size <= 4096; size *= 2) {
        if (size > 1024) {
            options.loop = options.loop_large;
            options.skip = options.skip_large;
        }
        for (int i = 0; i < options.loop + options.skip; i++)
            for (int j = 0; j < 64; j++) {
                a[j] += i;
                s += a[j];
            }
    }
    printf("s=%d\n", s > 0);
    return 0;
}
