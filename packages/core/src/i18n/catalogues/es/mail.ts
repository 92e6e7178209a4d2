import type { Translation } from '../../catalogue-shape';
import type en from '../en/mail';

export default {
  frame: {
    copyLink: 'O copia este enlace en tu navegador:',
    tagline: 'proxies residenciales',
    support: 'Soporte: {{address}}',
    contactSupport: 'contacta con soporte',
    contactSupportAt: 'contacta con soporte en {{address}}',
    actionLine: '{{label}}: {{url}}',
  },
  verifyEmail: {
    subject: 'Verifica tu correo electrónico',
    intro: 'Confirma tu dirección de correo electrónico para empezar a usar ProxyHub.',
    action: 'Verificar correo',
    outro: 'Este enlace caduca en 24 horas. Si no te registraste, ignora este correo.',
  },
  alreadyRegistered: {
    subject: 'Intento de inicio de sesión',
    intro: 'Alguien intentó crear una cuenta de ProxyHub con este correo, que ya tiene una. Puedes iniciar sesión en su lugar.',
    action: 'Iniciar sesión',
    outro: 'Si no fuiste tú, puedes ignorar este correo.',
  },
  codeGuessing: {
    subject: 'Alguien introdujo tu contraseña, pero no tu código',
    intro:
      'Alguien inició sesión en tu cuenta de ProxyHub con tu contraseña y después introdujo 20 códigos de verificación en dos pasos incorrectos. Tu segundo factor le impidió entrar, y el inicio de sesión con códigos queda en pausa durante 15 minutos. Esa persona conoce tu contraseña: cámbiala ahora.',
    action: 'Cambiar tu contraseña',
    outro: 'Si fuiste tú, no hace falta nada más. Si no, cambia también tu clave de API y tu contraseña de proxy en Ajustes.',
  },
  teamInvite: {
    subject: 'Te han invitado a un equipo de ProxyHub',
    intro:
      '{{account}} te ha invitado a su cuenta de ProxyHub con el rol de {{role}}. Inicia sesión o crea una cuenta con esta dirección de correo y después acepta la invitación.',
    action: 'Aceptar la invitación',
    outro: 'Este enlace caduca en 7 días y solo se puede usar una vez. Si no conoces al remitente, ignora este correo.',
  },
  role: {
    admin: 'administrador',
    developer: 'desarrollador',
    finance: 'finanzas',
    viewer: 'lector',
  },
  resetPassword: {
    subject: 'Restablece tu contraseña',
    intro: 'Recibimos una solicitud para restablecer tu contraseña de ProxyHub. Elige una nueva con el botón de abajo.',
    action: 'Restablecer contraseña',
    outro: 'Este enlace caduca en 1 hora y solo se puede usar una vez. Si no lo pediste, ignora este correo.',
  },
  passwordChanged: {
    subject: 'Se cambió tu contraseña',
    intro: 'Se acaba de cambiar la contraseña de tu cuenta de ProxyHub y se cerraron todas las sesiones.',
    introInSettings: 'Se acaba de cambiar la contraseña de tu cuenta de ProxyHub en Ajustes y se cerraron tus otras sesiones.',
    action: 'Iniciar sesión',
    outro:
      'Si no fuiste tú, restablece tu contraseña de inmediato y contacta con soporte. Tu clave de API y tu contraseña de proxy no cambiaron: si pudieron filtrarse, cámbialas en Ajustes (Rotar clave de API, Rotar contraseña de proxy) o llama a POST /auth/rotate-api-key y POST /auth/rotate-proxy-password. La clave de API anterior deja de funcionar al instante; la contraseña de proxy anterior, en menos de 10 segundos.',
  },
  lowBalance: {
    subject: 'Saldo bajo: quedan {{remaining}}',
    intro:
      'Tus datos restantes de ProxyHub son {{remaining}}, por debajo de tu umbral de alerta de {{threshold}}. Recarga para que tus proxies sigan funcionando.',
    action: 'Recargar',
    outro: 'Recibes este correo porque configuraste una alerta de saldo bajo en Ajustes.',
  },
  outOfData: {
    subject: 'Sin datos',
    intro: 'Tus datos restantes de ProxyHub llegaron a {{zero}}: tus proxies se detienen hasta que recargues.',
    action: 'Recargar',
    outro: 'Recibes este correo porque configuraste una alerta de saldo bajo en Ajustes.',
  },
  usageThresholdPlan: {
    subject: '{{percent}} usado: {{what}}',
    intro:
      'Has usado {{used}} de {{limit}} ({{percent}}) de {{what}}. Al llegar al 100 % tu tráfico sigue con tu saldo de pago por uso hasta que empiece el siguiente periodo.',
    action: 'Panel',
    outro: 'Recibes este correo por los porcentajes de alerta de uso de Ajustes.',
  },
  usageThreshold: {
    subject: '{{percent}} usado: {{what}}',
    intro:
      'Has usado {{used}} de {{limit}} ({{percent}}) de {{what}}. Al llegar al 100 % la cuenta se detiene hasta que se aumente el límite (un límite diario o mensual vuelve a empezar con el siguiente día o mes UTC).',
    action: 'Cuentas de proxy',
    outro: 'Recibes este correo por los porcentajes de alerta de uso de Ajustes.',
  },
  meter: {
    cap: 'el tope de la cuenta de proxy «{{name}}»',
    daily: 'el límite diario de la cuenta de proxy «{{name}}»',
    monthly: 'el límite mensual de la cuenta de proxy «{{name}}»',
    plan: 'la cuota del plan «{{name}}» de este periodo',
  },
  proxyAccountExpiring: {
    subject: 'La cuenta de proxy «{{name}}» caduca pronto',
    intro:
      'Tu cuenta de proxy «{{name}}» caduca el {{expiresAt}} (UTC): a partir de entonces se rechaza. Establece una caducidad posterior para que siga funcionando.',
    action: 'Cuentas de proxy',
    outro: 'Recibes este correo tres días antes de que caduque una cuenta de proxy a la que pusiste fecha de caducidad.',
  },
  planRenewing: {
    subject: 'Tu plan {{plan}} se renueva el {{endsOn}}',
    intro:
      'El periodo de tu plan {{plan}} de ProxyHub termina el {{endsOn}}. Paga el siguiente periodo antes de esa fecha y empezará justo cuando termine este; si no lo pagas, el plan vence y tus datos de pago por uso quedan como están.',
    action: 'Pagar el siguiente periodo',
    outro: 'Para dejar de renovar, cancela la renovación en Facturación. Lo que queda de este periodo es tuyo hasta que termine.',
  },
  accountSuspended: {
    subject: 'Tu cuenta de ProxyHub está suspendida',
    intro: 'Tu cuenta de ProxyHub ha sido suspendida: el inicio de sesión, la API y tus proxies están detenidos. Motivo: {{reason}}',
    action: 'Política de uso aceptable',
    outro: 'Si crees que es un error, responde a este correo o contacta con soporte.',
  },
  statusConfirm: {
    subject: 'Confirma los correos de estado de ProxyHub',
    intro: 'Confirma que esta dirección debe recibir un correo cuando un país del panel de estado de ProxyHub tenga problemas y cuando se recupere.',
    action: 'Confirmar suscripción',
    outro: 'Este enlace caduca en 24 horas. Si no lo pediste, ignora este correo: no se enviará nada.',
  },
  statusIncident: {
    subjectOpened: 'Estado de ProxyHub: {{country}} con problemas',
    subjectClosed: 'Estado de ProxyHub: {{country}} recuperado',
    opened: 'Estado de ProxyHub: {{country}} tiene problemas. Las conexiones de prueba por salidas de {{country}} están fallando.',
    closed: 'Estado de ProxyHub: {{country}} se ha recuperado. Las últimas {{window}} conexiones de prueba por salidas de {{country}} funcionaron.',
    action: 'Abrir la página de estado',
    outro: 'Recibes este correo porque te suscribiste a los correos de estado de ProxyHub. Cancelar la suscripción: {{url}}',
  },
} satisfies Translation<typeof en>;
