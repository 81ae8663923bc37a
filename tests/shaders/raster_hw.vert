#version 450
// test_raster's hardware side: the triangle's corners as given, in normalized device coordinates.
layout(location = 0) in vec3 position;
void main()
{
    gl_Position = vec4(position, 1.0);
}
