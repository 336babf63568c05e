/* Sizes read from an input file by a helper that stores through a pointer (UoB-HPC TeaLeaf's
   read_settings: while (getline(...)) if (starts_get_int("x_cells", line, word,
   &settings->grid_x_cells)) continue; with *value = atoi(word) in the helper), the settings
   passed down by pointer and copied into a chunk in another function.
   Usage: outparam CONFIG   (lines "x_cells N", "y_cells N", "end_step N") */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define HALO 2

typedef struct {
    int grid_x_cells, grid_y_cells, end_step, halo_depth;
    double dt_init;
} Settings;

typedef struct {
    int x, y;
    double *u, *r;
} Chunk;

static int starts_with(const char *word, const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    return strncmp(word, line, strlen(word)) == 0;
}

static void read_value(const char *line, const char *key, char *word)
{
    const char *at = strstr(line, key) + strlen(key);
    sscanf(at, "%s", word);
}

static int starts_get_int(const char *key, const char *line, char *word, int *value)
{
    if (starts_with(key, line)) {
        read_value(line, key, word);
        *value = atoi(word);
        return 1;
    }
    return 0;
}

static int starts_get_double(const char *key, const char *line, char *word, double *value)
{
    if (starts_with(key, line)) {
        read_value(line, key, word);
        *value = atof(word);
        return 1;
    }
    return 0;
}

static void read_settings(FILE *in, Settings *settings)
{
    char line[256], word[256];
    while (fgets(line, sizeof line, in) != NULL) {
        if (starts_get_double("initial_timestep", line, word, &settings->dt_init))
            continue;
        if (starts_get_int("x_cells", line, word, &settings->grid_x_cells))
            continue;
        if (starts_get_int("y_cells", line, word, &settings->grid_y_cells))
            continue;
        if (starts_get_int("end_step", line, word, &settings->end_step))
            continue;
    }
}

static void read_config(const char *path, Settings *settings)
{
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    read_settings(in, settings);
    fclose(in);
}

static void initialise_chunk(Chunk *chunk, const Settings *settings)
{
    chunk->x = settings->grid_x_cells + 2 * settings->halo_depth;
    chunk->y = settings->grid_y_cells + 2 * settings->halo_depth;
    chunk->u = calloc((size_t)chunk->x * chunk->y, sizeof(double));
    chunk->r = calloc((size_t)chunk->x * chunk->y, sizeof(double));
    for (int i = 0; i < chunk->x * chunk->y; i++)
        chunk->u[i] = 1.0 + i % 7;
}

static double jacobi(int x, int y, int halo, double *u, double *r)
{
    double err = 0.0;
    for (int jj = halo; jj < y - halo; jj++)
        for (int kk = halo; kk < x - halo; kk++) {
            int index = kk + jj * x;
            r[index] = 0.25 * (u[index - 1] + u[index + 1] + u[index - x] + u[index + x]);
            err += r[index] - u[index];
        }
    for (int i = 0; i < x * y; i++)
        u[i] = r[i] == 0.0 ? u[i] : r[i];
    return err;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CONFIG\n", argv[0]);
        return 2;
    }
    Settings *settings = calloc(1, sizeof *settings);
    settings->grid_x_cells = 10;
    settings->grid_y_cells = 10;
    settings->end_step = 1;
    settings->halo_depth = HALO;
    settings->dt_init = 0.1;
    read_config(argv[1], settings);
    Chunk chunk;
    initialise_chunk(&chunk, settings);
    double err = 0.0;
    for (int step = 0; step < settings->end_step; step++)
        err += jacobi(chunk.x, chunk.y, settings->halo_depth, chunk.u, chunk.r);
    printf("err = %.6e\n", err);
    free(chunk.u);
    free(chunk.r);
    free(settings);
    return 0;
}
