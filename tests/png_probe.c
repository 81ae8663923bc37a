/* Counts in a rectangle of a PNG what the window tests look for: bright pixels (text: every
 * channel above 200), amber ones (skeleton lines: red above 200, green above 140, blue below 110)
 * and a hash of the rectangle's pixels (whether two images differ there).
 *   usage: png_probe FILE.png X0 Y0 X1 Y1   prints "bright N amber M hash H" */
#include <stb/stb_image.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: png_probe FILE.png X0 Y0 X1 Y1\n");
        return 2;
    }
    int w, h, n;
    unsigned char *px = stbi_load(argv[1], &w, &h, &n, 4);
    if (!px) {
        fprintf(stderr, "png_probe: cannot read %s\n", argv[1]);
        return 2;
    }
    int x0 = atoi(argv[2]), y0 = atoi(argv[3]), x1 = atoi(argv[4]), y1 = atoi(argv[5]);
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > w ? w : x1, y1 = y1 > h ? h : y1;
    unsigned bright = 0, amber = 0;
    uint64_t hash = 1469598103934665603ull; /* FNV-1a */
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const unsigned char *p = px + 4 * ((size_t)y * w + x);
            bright += p[0] > 200 && p[1] > 200 && p[2] > 200;
            amber += p[0] > 200 && p[1] > 140 && p[2] < 110;
            for (int k = 0; k < 3; k++)
                hash = (hash ^ p[k]) * 1099511628211ull;
        }
    printf("bright %u amber %u hash %016llx\n", bright, amber, (unsigned long long)hash);
    stbi_image_free(px);
    return 0;
}
