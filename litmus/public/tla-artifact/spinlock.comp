#version 450
#pragma scheduler(OBE)
#extension GL_KHR_shader_subgroup_basic : enable
layout(local_size_x = 1) in;
layout(tla_subgroup_size = 1) in;
layout(tla_num_workgroups = 2) in;


layout(std430, binding = 0) buffer Lock {
    uint lock;
};

void main() {
    uint old = 1;
    do {
        old = atomicExchange(lock, 1);
    } while (old != 0);
    
    lock = 0;
}