#version 450
// test_raster's hardware side: 1 where the graphics pipeline covers a pixel.
layout(location = 0) out uint covered;
void main()
{
    covered = 1u;
}
