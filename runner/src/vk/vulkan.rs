//! The Vulkan side of `vk-bench`: one device and compute queue, the kernels' module, and per
//! kernel a pipeline (the warp size it was built for required of the device), two storage
//! buffers (input, output) and a `u32` push constant, timed with timestamp queries.
//! Buffers are host-visible and coherent: simple, and on a CPU driver the only memory there is.

use ash::vk;
use runner::table::Kernel;

/// Why there is no GPU to run on (exit 2), or what went wrong on it.
pub enum Error {
    NoDevice(String),
    Failed(String),
}

fn failed(what: &'static str) -> impl Fn(vk::Result) -> Error {
    move |e| Error::Failed(format!("{}: {}", what, e))
}

/// A device, its compute queue and the kernels' module.
pub struct Gpu {
    _entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    pub(crate) device: ash::Device,
    pub(crate) phys: vk::PhysicalDevice,
    pub(crate) queue: vk::Queue,
    pub(crate) family: u32,
    pub(crate) module: vk::ShaderModule,
    name: String,
    subgroup: u32,
    sizes: (u32, u32),
    pub(crate) size_control: bool,
    pub(crate) timestamp_ns: f32,
}

impl Gpu {
    /// The first device with a compute queue, and the module `words`.
    pub fn new(words: &[u32]) -> Result<Gpu, Error> {
        // SAFETY: loading the system's Vulkan loader; every call below follows the spec's
        // valid usage (handles from this instance, destroyed in Drop).
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            Error::NoDevice(format!(
                "no Vulkan loader ({}): install one and a driver, e.g. `apt-get install -y libvulkan1 mesa-vulkan-drivers` for the CPU driver lavapipe",
                e
            ))
        })?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = unsafe {
            entry.create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
        }
        .map_err(|e| Error::NoDevice(format!("no Vulkan instance: {}", e)))?;
        let phys = unsafe { instance.enumerate_physical_devices() }.unwrap_or_default();
        let Some((phys, family)) = phys.into_iter().find_map(|p| {
            let q = unsafe { instance.get_physical_device_queue_family_properties(p) };
            q.iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .map(|i| (p, i as u32))
        }) else {
            return Err(Error::NoDevice(
                "no Vulkan device with a compute queue (for a CPU one: `apt-get install -y mesa-vulkan-drivers`)".into(),
            ));
        };
        Self::open(entry, instance, phys, family, words)
    }

    fn open(
        entry: ash::Entry,
        instance: ash::Instance,
        phys: vk::PhysicalDevice,
        family: u32,
        words: &[u32],
    ) -> Result<Gpu, Error> {
        let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
        let mut ctl = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut sub)
            .push_next(&mut ctl);
        unsafe { instance.get_physical_device_properties2(phys, &mut props) };
        let p = props.properties;
        if p.api_version < vk::API_VERSION_1_3 {
            return Err(Error::NoDevice(format!(
                "the device supports Vulkan {}.{}; the kernels need 1.3 (subgroup size control)",
                vk::api_version_major(p.api_version),
                vk::api_version_minor(p.api_version)
            )));
        }
        let name = p
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut feats = vk::PhysicalDeviceFeatures2::default().push_next(&mut f13);
        unsafe { instance.get_physical_device_features2(phys, &mut feats) };
        let size_control =
            f13.subgroup_size_control == vk::TRUE && f13.compute_full_subgroups == vk::TRUE;
        let base = vk::PhysicalDeviceFeatures::default()
            .shader_int16(true)
            .shader_int64(true);
        let mut v11 =
            vk::PhysicalDeviceVulkan11Features::default().storage_buffer16_bit_access(true);
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
            .storage_buffer8_bit_access(true)
            .shader_int8(true)
            .vulkan_memory_model(true);
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(size_control)
            .compute_full_subgroups(size_control);
        let prio = [1.0f32];
        let qinfo = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let dinfo = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qinfo)
            .enabled_features(&base)
            .push_next(&mut v11)
            .push_next(&mut v12)
            .push_next(&mut v13);
        let device = unsafe { instance.create_device(phys, &dinfo, None) }.map_err(|e| {
            Error::NoDevice(format!("{}: cannot open it with 8/16/64-bit integers and storage, and the Vulkan memory model: {}", name, e))
        })?;
        let queue = unsafe { device.get_device_queue(family, 0) };
        let module = unsafe {
            device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
        }
        .map_err(failed("loading the SPIR-V module"))?;
        Ok(Gpu {
            _entry: entry,
            instance,
            device,
            phys,
            queue,
            family,
            module,
            name,
            subgroup: sub.subgroup_size,
            sizes: (ctl.min_subgroup_size, ctl.max_subgroup_size),
            size_control,
            timestamp_ns: p.limits.timestamp_period,
        })
    }

    /// The device and its subgroups, for the report.
    pub fn describe(&self) -> String {
        format!(
            "{}: subgroups of {} lanes ({} to {}{})",
            self.name,
            self.subgroup,
            self.sizes.0,
            self.sizes.1,
            if self.size_control {
                ", size control"
            } else {
                ""
            }
        )
    }

    /// Whether kernel `k` can run here: its warp size must be one this device's subgroups have.
    pub fn can_run(&self, k: &Kernel) -> Result<(), String> {
        let w = k.warp_size;
        let ok = w == 0
            || w == self.subgroup
            || (self.size_control && (self.sizes.0..=self.sizes.1).contains(&w));
        if ok {
            Ok(())
        } else {
            Err(format!(
                "built for warps of {} lanes; this device's subgroups have {}{}",
                w,
                self.subgroup,
                if self.size_control {
                    format!(" ({} to {})", self.sizes.0, self.sizes.1)
                } else {
                    String::new()
                }
            ))
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        unsafe {
            self.device.destroy_shader_module(self.module, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
