/* bin2c FILE SYMBOL OUT.c: writes FILE's bytes as `const unsigned char SYMBOL[]` and
 * `const size_t SYMBOL_size`, so that programs carry their assets and run from any folder. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bin2c FILE SYMBOL OUT.c\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    FILE *out = fopen(argv[3], "w");
    if (!out) {
        perror(argv[3]);
        fclose(in);
        return 1;
    }
    fprintf(out,
            "#include <stddef.h>\n/* generated from %s; aligned so that SPIR-V can be read as "
            "uint32_t */\n_Alignas(16) const unsigned char %s[] = {",
            argv[1], argv[2]);
    size_t n = 0;
    int c;
    while ((c = fgetc(in)) != EOF)
        fprintf(out, "%s0x%02x,", n++ % 16 ? "" : "\n", c);
    fprintf(out, "0x00};\nconst size_t %s_size = %zu;\n", argv[2], n);
    int bad = ferror(in) || fclose(out) != 0;
    fclose(in);
    if (bad) {
        fprintf(stderr, "bin2c: failed writing %s\n", argv[3]);
        return 1;
    }
    return 0;
}
