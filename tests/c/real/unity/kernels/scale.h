#define SCALE 0.125
