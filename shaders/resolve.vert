#version 450
// The resolve's full-screen triangle (shaders/resolve.frag shades each pixel): three vertices
// from gl_VertexIndex, covering the viewport, at depth 0 (the fragment shader writes the depth).
void main()
{
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
