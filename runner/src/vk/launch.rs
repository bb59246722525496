//! One kernel on the device: buffers, pipeline, descriptors, a timed dispatch repeated.

use std::ffi::CString;

use ash::vk;
use runner::table::Kernel;

use crate::vulkan::Gpu;

fn err(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{}: {}", what, e)
}

/// A host-visible, coherent storage buffer.
struct Buffer {
    buf: vk::Buffer,
    mem: vk::DeviceMemory,
    size: usize,
}

impl Gpu {
    fn buffer(&self, bytes: &[u8]) -> Result<Buffer, String> {
        let d = &self.device;
        let size = bytes.len().max(4);
        let info = vk::BufferCreateInfo::default()
            .size(size as u64)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER);
        // SAFETY: valid create infos on this device; the memory is mapped within its size.
        unsafe {
            let buf = d.create_buffer(&info, None).map_err(err("buffer"))?;
            let req = d.get_buffer_memory_requirements(buf);
            let mp = self
                .instance
                .get_physical_device_memory_properties(self.phys);
            let want =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let ty = (0..mp.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && mp.memory_types[i as usize].property_flags.contains(want)
                })
                .ok_or("no host-visible coherent memory")?;
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(ty);
            let mem = d.allocate_memory(&alloc, None).map_err(err("memory"))?;
            d.bind_buffer_memory(buf, mem, 0).map_err(err("bind"))?;
            let p = d
                .map_memory(mem, 0, size as u64, vk::MemoryMapFlags::empty())
                .map_err(err("map"))?;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, bytes.len());
            d.unmap_memory(mem);
            Ok(Buffer { buf, mem, size })
        }
    }

    fn read(&self, b: &Buffer, len: usize) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; len];
        // SAFETY: mapped within its size; the queue is idle.
        unsafe {
            let p = self
                .device
                .map_memory(b.mem, 0, b.size as u64, vk::MemoryMapFlags::empty())
                .map_err(err("map"))?;
            std::ptr::copy_nonoverlapping(p as *const u8, out.as_mut_ptr(), len);
            self.device.unmap_memory(b.mem);
        }
        Ok(out)
    }

    fn free(&self, b: Buffer) {
        unsafe {
            self.device.destroy_buffer(b.buf, None);
            self.device.free_memory(b.mem, None);
        }
    }

    /// Kernel `k` (entry `entry`) over `n x n` elements from `input` into a poisoned output of
    /// `out_len` bytes, dispatched `reps` times: the output and each dispatch's milliseconds.
    pub fn run(
        &self,
        entry: &str,
        k: &Kernel,
        n: u32,
        input: &[u8],
        out_len: usize,
        reps: usize,
    ) -> Result<(Vec<u8>, Vec<f32>), String> {
        let inp = self.buffer(input)?;
        let out = self.buffer(&vec![crate::host::POISON; out_len])?;
        let r = self.dispatch(entry, k, n, &inp, &out, reps);
        let data = self.read(&out, out_len);
        self.free(inp);
        self.free(out);
        Ok((data?, r?))
    }

    fn dispatch(
        &self,
        entry: &str,
        k: &Kernel,
        n: u32,
        inp: &Buffer,
        out: &Buffer,
        reps: usize,
    ) -> Result<Vec<f32>, String> {
        let d = &self.device;
        let name = CString::new(entry).map_err(|e| e.to_string())?;
        let binds: Vec<_> = (0..2)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(4)];
        // SAFETY: every handle below is made here on this device and destroyed before returning.
        unsafe {
            let dsl = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&binds),
                    None,
                )
                .map_err(err("descriptor set layout"))?;
            let layouts = [dsl];
            let pl = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&layouts)
                        .push_constant_ranges(&push),
                    None,
                )
                .map_err(err("pipeline layout"))?;
            let mut req = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
                .required_subgroup_size(k.warp_size);
            let mut stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(self.module)
                .name(&name);
            if self.size_control && k.warp_size != 0 {
                stage = stage
                    .flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS)
                    .push_next(&mut req);
            }
            let info = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(pl)];
            let pipe = d
                .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
                .map_err(|(_, e)| format!("pipeline for {}: {}", entry, e))?[0];
            let sizes = [vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(2)];
            let pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .map_err(err("descriptor pool"))?;
            let set = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&layouts),
                )
                .map_err(err("descriptor set"))?[0];
            let infos = [
                [vk::DescriptorBufferInfo::default()
                    .buffer(inp.buf)
                    .range(vk::WHOLE_SIZE)],
                [vk::DescriptorBufferInfo::default()
                    .buffer(out.buf)
                    .range(vk::WHOLE_SIZE)],
            ];
            let writes: Vec<_> = infos
                .iter()
                .enumerate()
                .map(|(b, i)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(b as u32)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(i)
                })
                .collect();
            d.update_descriptor_sets(&writes, &[]);
            let r = self.timed(k, n, pipe, pl, set, reps);
            d.destroy_descriptor_pool(pool, None);
            d.destroy_pipeline(pipe, None);
            d.destroy_pipeline_layout(pl, None);
            d.destroy_descriptor_set_layout(dsl, None);
            r
        }
    }

    /// `reps` dispatches, each timed between two timestamps.
    unsafe fn timed(
        &self,
        k: &Kernel,
        n: u32,
        pipe: vk::Pipeline,
        pl: vk::PipelineLayout,
        set: vk::DescriptorSet,
        reps: usize,
    ) -> Result<Vec<f32>, String> {
        let d = &self.device;
        let qp = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(2),
                None,
            )
            .map_err(err("query pool"))?;
        let cp = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(self.family),
                None,
            )
            .map_err(err("command pool"))?;
        let cb = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(cp)
                    .command_buffer_count(1),
            )
            .map_err(err("command buffer"))?[0];
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(err("fence"))?;
        let [gx, gy, gz] = k.grid(n);
        let arg = k.arg(n).unwrap_or(0).to_le_bytes();
        let mut times = Vec::new();
        let mut result = Ok(());
        for _ in 0..reps {
            let step = (|| -> Result<f32, vk::Result> {
                d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())?;
                d.cmd_reset_query_pool(cb, qp, 0, 2);
                d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipe);
                d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, pl, 0, &[set], &[]);
                d.cmd_push_constants(cb, pl, vk::ShaderStageFlags::COMPUTE, 0, &arg);
                d.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, qp, 0);
                d.cmd_dispatch(cb, gx, gy, gz);
                d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 1);
                d.end_command_buffer(cb)?;
                let cbs = [cb];
                d.queue_submit(
                    self.queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    fence,
                )?;
                d.wait_for_fences(&[fence], true, u64::MAX)?;
                d.reset_fences(&[fence])?;
                let mut ts = [0u64; 2];
                d.get_query_pool_results(
                    qp,
                    0,
                    &mut ts,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )?;
                Ok((ts[1].wrapping_sub(ts[0])) as f32 * self.timestamp_ns / 1e6)
            })();
            match step {
                Ok(ms) => times.push(ms),
                Err(e) => {
                    result = Err(format!("dispatch: {}", e));
                    break;
                }
            }
        }
        d.destroy_fence(fence, None);
        d.destroy_command_pool(cp, None);
        d.destroy_query_pool(qp, None);
        result.map(|()| times)
    }
}
